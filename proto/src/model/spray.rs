//! Path choice and source-port entropy, in the form the RTL `spray` block
//! computes.

/// What the sprayer knows of one path when a new packet is to be sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Candidate {
    /// The path exists in this connection.
    pub present: bool,
    /// Free window in packets (`Window::free`).
    pub free: u32,
    /// Fewer than 256 PSNs between its oldest unacknowledged and next PSN.
    pub span_ok: bool,
    /// Taking no new data (persistent loss).
    pub retired: bool,
}

/// The path for the next new packet: the one with the most free window,
/// ties going to the first in round-robin order from `rr`; retired paths
/// only when every present path is retired. `None` if nothing may send.
pub fn pick(paths: &[Candidate], rr: usize) -> Option<usize> {
    let n = paths.len();
    let any_live = paths.iter().any(|p| p.present && !p.retired);
    let mut best: Option<(usize, u32)> = None;
    for k in 0..n {
        let i = (rr + k) % n;
        let p = &paths[i];
        let eligible = p.present && p.span_ok && (!p.retired || !any_live) && p.free >= 1;
        if eligible && best.is_none_or(|(_, b)| p.free > b) {
            best = Some((i, p.free));
        }
    }
    best.map(|(i, _)| i)
}

/// First UDP source port of the entropy range.
pub const PORT_BASE: u16 = 49152;

/// Source-port generator: a 32-bit xorshift (cheap in logic); each port is
/// the top 14 bits of the next state, in the dynamic range 49152-65535.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PortGen(u32);

impl PortGen {
    /// A generator from `seed` (a zero seed is replaced: xorshift sticks at 0).
    pub fn new(seed: u32) -> PortGen {
        PortGen(if seed == 0 { 0x2545_f491 } else { seed })
    }

    /// The next port, different from `avoid`.
    pub fn next_port(&mut self, avoid: u16) -> u16 {
        loop {
            let mut x = self.0;
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            self.0 = x;
            let p = PORT_BASE + (x >> 18) as u16;
            if p != avoid {
                return p;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(free: u32) -> Candidate {
        Candidate { present: true, free, span_ok: true, retired: false }
    }

    #[test]
    fn most_free_window_wins_ties_go_round_robin() {
        let p = [c(2), c(5), c(5), c(1)];
        assert_eq!(pick(&p, 0), Some(1));
        assert_eq!(pick(&p, 2), Some(2));
        assert_eq!(pick(&p, 3), Some(1));
        let mut q = p;
        q[1].span_ok = false;
        q[2].retired = true;
        assert_eq!(pick(&q, 0), Some(0));
        let all_retired: Vec<Candidate> = p.iter().map(|x| Candidate { retired: true, ..*x }).collect();
        assert_eq!(pick(&all_retired, 0), Some(1), "retired paths when nothing else is left");
        assert_eq!(pick(&[c(0), Candidate::default()], 0), None);
    }

    #[test]
    fn ports_stay_in_the_dynamic_range_and_avoid_the_old_one() {
        let mut g = PortGen::new(1);
        let mut last = 0;
        for _ in 0..10_000 {
            let p = g.next_port(last);
            assert!(p >= PORT_BASE && p != last);
            last = p;
        }
    }
}

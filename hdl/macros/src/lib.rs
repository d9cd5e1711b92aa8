//! Derives for ferroce-hdl's rust-hdl blocks.
//!
//! * [`HdlDefault`](macro@HdlDefault): `Default` for a block whose fields
//!   include rust-hdl `Constant`s (which have no `Default`) or arrays longer
//!   than 32 (likewise). A field marked `#[constant(e)]` is
//!   `Constant::new((e).into())`; `#[constants(f)]` on an array of constants
//!   is `Constant::new((f)(i).into())` for each index `i`; every other array
//!   is filled with `Default::default()`, every other field is
//!   `Default::default()`.
//! * [`HdlStruct`](macro@HdlStruct): rust-hdl's `LogicStruct` (a struct of
//!   signals packed into one bit vector, fields from bit 0 up) with its field
//!   offsets typed `u32`. `#[hdl_gen]` turns `x.val().f` into a part-select
//!   whose base is the offset written as a literal; `LogicStruct`'s `usize`
//!   offsets become 64-bit literals, which Verilator's `-Wall` flags on every
//!   field access (WIDTHTRUNC), while 32-bit literals are accepted.

use proc_macro::TokenStream;
use proc_macro2::TokenStream as TS;
use quote::{format_ident, quote};
use syn::{parse_macro_input, Data, DeriveInput, Fields, Type};

fn named_fields(input: &DeriveInput, what: &str) -> Result<Vec<syn::Field>, syn::Error> {
    match &input.data {
        Data::Struct(s) => match &s.fields {
            Fields::Named(n) => Ok(n.named.iter().cloned().collect()),
            _ => Err(syn::Error::new_spanned(&input.ident, format!("{what}: a struct with named fields only"))),
        },
        _ => Err(syn::Error::new_spanned(&input.ident, format!("{what}: structs only"))),
    }
}

fn attr_expr(f: &syn::Field, name: &str) -> Result<Option<syn::Expr>, syn::Error> {
    for a in &f.attrs {
        if a.path.is_ident(name) {
            return a.parse_args::<syn::Expr>().map(Some);
        }
    }
    Ok(None)
}

/// `Default` with `#[constant(e)]` and `#[constants(f)]` fields (see the
/// crate documentation).
#[proc_macro_derive(HdlDefault, attributes(constant, constants))]
pub fn hdl_default(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    match hdl_default_impl(&input) {
        Ok(t) => t.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

fn hdl_default_impl(input: &DeriveInput) -> Result<TS, syn::Error> {
    let fields = named_fields(input, "HdlDefault")?;
    let mut inits = Vec::new();
    for f in &fields {
        let id = f.ident.clone().expect("named field");
        let init = if let Some(e) = attr_expr(f, "constant")? {
            quote!(::rust_hdl::prelude::Constant::new(::core::convert::Into::into(#e)))
        } else if let Some(e) = attr_expr(f, "constants")? {
            quote!(::core::array::from_fn(|i| ::rust_hdl::prelude::Constant::new(::core::convert::Into::into((#e)(i)))))
        } else if matches!(f.ty, Type::Array(_)) {
            quote!(::core::array::from_fn(|_| ::core::default::Default::default()))
        } else {
            quote!(::core::default::Default::default())
        };
        inits.push(quote!(#id: #init));
    }
    let name = &input.ident;
    let (ig, tg, wc) = input.generics.split_for_impl();
    Ok(quote! {
        impl #ig ::core::default::Default for #name #tg #wc {
            fn default() -> Self {
                Self { #(#inits),* }
            }
        }
    })
}

/// A packed struct of signals with 32-bit field offsets (see the crate
/// documentation).
#[proc_macro_derive(HdlStruct)]
pub fn hdl_struct(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    match hdl_struct_impl(&input) {
        Ok(t) => t.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

fn hdl_struct_impl(input: &DeriveInput) -> Result<TS, syn::Error> {
    let fields = named_fields(input, "HdlStruct")?;
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(&input.generics, "HdlStruct: no generic parameters"));
    }
    let ids: Vec<_> = fields.iter().map(|f| f.ident.clone().expect("named field")).collect();
    let tys: Vec<_> = fields.iter().map(|f| f.ty.clone()).collect();
    let widths: Vec<_> = ids.iter().map(|f| format_ident!("get_my_width_{}", f)).collect();
    let offsets: Vec<_> = ids.iter().map(|f| format_ident!("get_my_offset_{}", f)).collect();
    let before: Vec<_> = (0..tys.len())
        .map(|i| {
            let prev = &tys[..i];
            quote!(0_usize #(+ <#prev as ::rust_hdl::prelude::Synth>::BITS)*)
        })
        .collect();
    let name = &input.ident;
    let p = quote!(::rust_hdl::prelude);
    Ok(quote! {
        #[allow(clippy::unused_self, dead_code)]
        impl #name {
            #(
                /// Width of the field in bits.
                pub fn #widths(&self) -> usize { <#tys as #p::Synth>::BITS }
                /// Bit offset of the field (32-bit, for clean Verilog).
                pub fn #offsets(&self) -> u32 { (#before) as u32 }
            )*
        }
        impl ::core::convert::From<#name> for #p::Bits<{ <#name as #p::Synth>::BITS }> {
            fn from(x: #name) -> Self {
                let mut b = #p::Bits::<{ <#name as #p::Synth>::BITS }>::default();
                #(
                    b = b | (#p::bit_cast::<{ <#name as #p::Synth>::BITS }, { <#tys as #p::Synth>::BITS }>(x.#ids.into())
                        << ((#before) as #p::LiteralType));
                )*
                b
            }
        }
        impl #p::Synth for #name {
            const BITS: usize = 0_usize #(+ <#tys as #p::Synth>::BITS)*;
            fn descriptor() -> #p::TypeDescriptor {
                #p::TypeDescriptor {
                    name: stringify!(#name).to_string(),
                    kind: #p::TypeKind::Composite(vec![#(Box::new(#p::TypeField {
                        fieldname: stringify!(#ids).to_string(),
                        kind: <#tys as #p::Synth>::descriptor(),
                    })),*]),
                }
            }
            fn vcd(self) -> #p::VCDValue {
                #p::VCDValue::Composite(vec![#(Box::new(#p::Synth::vcd(self.#ids))),*])
            }
            fn verilog(self) -> #p::VerilogLiteral
            where
                Self: Sized,
            {
                let t: #p::Bits<{ <#name as #p::Synth>::BITS }> = self.into();
                t.into()
            }
        }
    })
}

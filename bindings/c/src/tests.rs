//! Rust-side checks that the committed header and this library agree (the C test suite in
//! `tests/` checks behaviour through the real ABI).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::*;

/// The public headers, `mcpgen.h` first, then every header it includes with `#include "…"`
/// (the generated `mcpgen_schema.h`): (file name, text).
fn headers() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("include");
    let mut out: Vec<(String, String)> = Vec::new();
    let mut todo = vec!["mcpgen.h".to_owned()];
    while let Some(name) = todo.pop() {
        if out.iter().any(|(n, _)| *n == name) {
            continue;
        }
        let path = dir.join(&name);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for line in text.lines() {
            if let Some(rest) = line.trim().strip_prefix("#include \"") {
                todo.push(rest.split('"').next().unwrap().to_owned());
            }
        }
        out.push((name, text));
    }
    out
}

fn header(name: &str) -> String {
    headers().into_iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("mcpgen.h does not include {name}")).1
}

/// The text C sees: comments removed, `#ifdef __cplusplus` blocks and other preprocessor
/// lines dropped.
fn c_text(h: &str) -> String {
    let mut text = String::new();
    let mut rest = h;
    while let Some(i) = rest.find("/*") {
        text.push_str(&rest[..i]);
        text.push(' ');
        rest = rest[i..].find("*/").map_or("", |j| &rest[i + j + 2..]);
    }
    text.push_str(rest);
    let mut out = String::new();
    let mut in_cplusplus = 0;
    let mut continued = false;
    for line in text.lines() {
        let t = line.trim_start();
        let directive = continued || t.starts_with('#');
        continued = directive && line.trim_end().ends_with('\\');
        if t.starts_with("#ifdef __cplusplus") {
            in_cplusplus += 1;
        } else if in_cplusplus > 0 && t.starts_with("#endif") {
            in_cplusplus -= 1;
        } else if !directive && in_cplusplus == 0 {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// Top-level declarations (split at `;` outside braces), whitespace collapsed.
fn declarations(h: &str) -> Vec<String> {
    let text = c_text(h);
    let mut out = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    for (i, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.checked_sub(1).expect("unbalanced braces in the header"),
            ';' if depth == 0 => {
                out.push(text[start..i].split_whitespace().collect::<Vec<_>>().join(" "));
                start = i + 1;
            }
            _ => {}
        }
    }
    assert!(text[start..].trim().is_empty(), "text after the last declaration: {:?}", text[start..].trim());
    out
}

/// A C type as the ABI sees it: base name and, from the outermost pointer in, whether each
/// pointer's target is `const`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Shape {
    base: String,
    pointees_const: Vec<bool>,
}

impl std::fmt::Display for Shape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.base)?;
        for c in self.pointees_const.iter().rev() {
            write!(f, " {}", if *c { "const*" } else { "*" })?;
        }
        Ok(())
    }
}

/// `const uint8_t *tool` → (`uint8_t`, [true]); `mcpgen_error **error_out` → two pointers.
fn c_shape(param: &str, named: bool) -> Shape {
    let spaced = param.replace('*', " * ");
    let mut tokens: Vec<&str> = spaced.split_whitespace().collect();
    if named {
        let name = tokens.pop().expect("an empty parameter");
        assert!(name.chars().all(|c| c.is_alphanumeric() || c == '_'), "unnamed parameter `{param}`");
    }
    let mut base = None;
    let mut is_const = false;
    let mut inner_first = Vec::new();
    for t in tokens {
        match t {
            "const" => is_const = true,
            "*" => {
                inner_first.push(is_const);
                is_const = false;
            }
            name => {
                assert!(base.is_none(), "cannot read the C type `{param}`");
                base = Some(name.to_owned());
            }
        }
    }
    inner_first.reverse();
    Shape { base: base.unwrap_or_else(|| panic!("no type in `{param}`")), pointees_const: inner_first }
}

/// A Rust parameter or return type, the same way.
fn rust_shape(ty: &syn::Type) -> Shape {
    match ty {
        syn::Type::Ptr(p) => {
            let mut s = rust_shape(&p.elem);
            s.pointees_const.insert(0, p.const_token.is_some());
            s
        }
        syn::Type::Path(p) => {
            let last = p.path.segments.last().unwrap();
            if last.ident == "Option" {
                // `Option<extern fn>`: a nullable function pointer.
                if let syn::PathArguments::AngleBracketed(a) = &last.arguments {
                    if let Some(syn::GenericArgument::Type(t)) = a.args.first() {
                        return rust_shape(t);
                    }
                }
            }
            Shape { base: last.ident.to_string(), pointees_const: Vec::new() }
        }
        _ => panic!("an export with a type that is neither a pointer nor a path (add it to rust_shape)"),
    }
}

/// A C function declaration: return type and parameters.
#[derive(Debug)]
struct CFunction {
    ret: Shape,
    params: Vec<Shape>,
}

/// Every function the headers declare, by name; panics on a declaration it cannot classify, so
/// nothing is skipped silently.
fn header_functions(h: &str) -> BTreeMap<String, CFunction> {
    let mut out = BTreeMap::new();
    for decl in declarations(h) {
        if decl.starts_with("typedef ") || decl.starts_with("enum ") || decl.is_empty() {
            continue;
        }
        let (Some(open), true) = (decl.find('('), decl.ends_with(')')) else {
            panic!("not a typedef, enum or function declaration: `{decl}`");
        };
        let head = &decl[..open];
        let name = head.rsplit(|c: char| !(c.is_alphanumeric() || c == '_')).next().unwrap_or("");
        assert!(name.starts_with("mcpgen_"), "a function without the mcpgen_ prefix: `{decl}`");
        let ret = c_shape(&head[..head.len() - name.len()], false);
        let params = decl[open + 1..decl.len() - 1].trim();
        let params = if params == "void" { Vec::new() } else { params.split(',').map(|p| c_shape(p, true)).collect() };
        assert!(out.insert(name.to_owned(), CFunction { ret, params }).is_none(), "{name} is declared twice");
    }
    out
}

/// Every function declared by the headers mcpgen.h pulls in.
fn declared_functions() -> BTreeMap<String, CFunction> {
    let mut out = BTreeMap::new();
    for (name, text) in headers() {
        for (f, decl) in header_functions(&text) {
            assert!(out.insert(f.clone(), decl).is_none(), "{f} is declared twice (again in {name})");
        }
    }
    out
}

/// Exported functions of this crate: name → (return type, parameter types).
fn exported_functions() -> BTreeMap<String, (Shape, Vec<Shape>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let file = syn::parse_file(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for item in file.items {
            if let syn::Item::Fn(f) = item {
                let exported = f.attrs.iter().any(|a| a.path().is_ident("no_mangle"));
                if exported {
                    let ret = match &f.sig.output {
                        syn::ReturnType::Default => Shape { base: "()".into(), pointees_const: Vec::new() },
                        syn::ReturnType::Type(_, t) => rust_shape(t),
                    };
                    let params = f
                        .sig
                        .inputs
                        .iter()
                        .map(|a| match a {
                            syn::FnArg::Typed(t) => rust_shape(&t.ty),
                            syn::FnArg::Receiver(_) => panic!("{}: a method cannot be exported", f.sig.ident),
                        })
                        .collect();
                    out.insert(f.sig.ident.to_string(), (ret, params));
                }
            }
        }
    }
    out
}

/// The C base type a Rust one must be declared as; `None` for this crate's own types, which
/// must map one-to-one (`Context` is always `mcpgen_context`).
fn c_base_of(rust: &str) -> Option<&'static [&'static str]> {
    Some(match rust {
        "()" => &["void"],
        "c_void" => &["void"],
        "c_char" => &["char"],
        "c_int" | "i32" => &["int"],
        "bool" => &["bool"],
        "u8" => &["uint8_t"],
        "u16" => &["uint16_t"],
        "u64" => &["uint64_t"],
        "i64" => &["int64_t"],
        "usize" => &["size_t"],
        "Status" => &["mcpgen_status"],
        "McpgenStr" => &["mcpgen_str"],
        // `u32` also carries the header's enums and `mcpgen_def_id` (checked below).
        "u32" => &["uint32_t"],
        _ => return None,
    })
}

/// Names the header defines as an enum or as `uint32_t`: what a Rust `u32` may be declared as.
fn u32_typedefs() -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (_, text) in headers() {
        for decl in declarations(&text) {
            if decl.starts_with("typedef enum ") || decl.starts_with("typedef uint32_t ") {
                out.insert(decl.rsplit(' ').next().unwrap().to_owned());
            }
        }
    }
    out
}

#[test]
fn header_declares_exactly_the_exported_functions() {
    let declared = declared_functions();
    let exported = exported_functions();
    assert!(exported.len() > 40, "found only {} exports", exported.len());
    let u32_names = u32_typedefs();
    assert!(u32_names.contains("mcpgen_revision") && u32_names.contains("mcpgen_def_id"), "{u32_names:?}");
    // This crate's own types, each with the one C type it is declared as (and where first seen).
    let mut own: BTreeMap<String, (String, String)> = BTreeMap::new();
    let mut problems = Vec::new();
    let mut check = |what: String, rust: &Shape, c: &Shape| -> Option<String> {
        if rust.pointees_const != c.pointees_const {
            return Some(format!("{what}: `{rust}` in Rust, `{c}` in the header"));
        }
        match c_base_of(&rust.base) {
            Some(allowed) if allowed.contains(&c.base.as_str()) => None,
            Some(_) if rust.base == "u32" && u32_names.contains(&c.base) => None,
            Some(_) => Some(format!("{what}: `{rust}` in Rust, `{c}` in the header")),
            None => match own.get(&rust.base) {
                Some((seen, at)) if *seen != c.base => {
                    Some(format!("{what}: `{}` is `{}` here but `{seen}` at {at}", rust.base, c.base))
                }
                Some(_) => None,
                None => {
                    own.insert(rust.base.clone(), (c.base.clone(), what));
                    None
                }
            },
        }
    };
    for (name, (ret, params)) in &exported {
        let Some(c) = declared.get(name) else {
            problems.push(format!("{name} is exported but not declared in include/mcpgen.h"));
            continue;
        };
        if c.params.len() != params.len() {
            problems.push(format!("{name}: {} parameters in Rust, {} in mcpgen.h", params.len(), c.params.len()));
            continue;
        }
        problems.extend(check(format!("{name} return"), ret, &c.ret));
        for (i, (r, c)) in params.iter().zip(&c.params).enumerate() {
            problems.extend(check(format!("{name} parameter {}", i + 1), r, c));
        }
    }
    for name in declared.keys() {
        if !exported.contains_key(name) {
            problems.push(format!("{name} is declared in the headers but not exported"));
        }
    }
    // The C names of this crate's types are distinct (no two Rust types behind one C type).
    let mut by_c: BTreeMap<&str, &str> = BTreeMap::new();
    for (rust, (c, _)) in &own {
        if let Some(other) = by_c.insert(c, rust) {
            problems.push(format!("`{c}` stands for both `{other}` and `{rust}`"));
        }
    }
    assert!(problems.is_empty(), "the headers and the exports disagree:\n  {}", problems.join("\n  "));
}

#[test]
fn the_generated_header_declares_no_functions() {
    // The API is the hand-written mcpgen.h; mcpgen_schema.h holds constants only.
    let generated = header("mcpgen_schema.h");
    assert!(generated.starts_with("/* @generated by mcpgen-codegen"), "mcpgen_schema.h is not the generated header");
    assert!(header_functions(&generated).is_empty());
    assert!(!header("mcpgen.h").contains("@generated"), "mcpgen.h is hand-written");
}

/// `typedef enum mcpgen_status { … }` of `mcpgen.h`: (name, value) in order.
fn header_statuses() -> Vec<(String, u32)> {
    let decl = declarations(&header("mcpgen.h"))
        .into_iter()
        .find(|d| d.starts_with("typedef enum mcpgen_status {"))
        .expect("mcpgen.h declares no `typedef enum mcpgen_status`");
    assert!(decl.ends_with("} mcpgen_status"), "{decl}");
    let body = &decl[decl.find('{').unwrap() + 1..decl.rfind('}').unwrap()];
    body.split(',')
        .map(|e| {
            let (name, value) = e.split_once('=').unwrap_or_else(|| panic!("`{e}` has no explicit value"));
            let value = value.trim().parse().unwrap_or_else(|_| panic!("`{e}`: not a number"));
            (name.trim().to_owned(), value)
        })
        .collect()
}

#[test]
fn header_status_enum_is_the_status_table() {
    let table: Vec<(String, u32)> =
        Status::ALL.iter().map(|s| (s.name().trim_end_matches('\0').to_owned(), *s as u32)).collect();
    let header = header_statuses();
    let missing: Vec<_> = table.iter().filter(|t| !header.contains(t)).collect();
    let extra: Vec<_> = header.iter().filter(|h| !table.contains(h)).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "mcpgen_status in mcpgen.h differs from bindings/c/src/status.rs: missing {missing:?}, not in the table {extra:?}"
    );
    assert_eq!(header, table, "mcpgen_status in mcpgen.h lists the statuses in another order than status.rs");
}

#[test]
fn every_status_is_documented_in_the_header() {
    let h = header("mcpgen.h");
    for s in Status::ALL {
        let name = s.name().trim_end_matches('\0');
        let line = format!("    {name} = {}", *s as u32);
        let at = h.find(&line).unwrap_or_else(|| panic!("mcpgen.h lacks `{line}`"));
        assert!(h[..at].trim_end().ends_with("*/"), "{name} has no doc comment in mcpgen.h");
    }
}

#[test]
fn header_reader_sees_what_it_must() {
    // The reader skips nothing silently: preprocessor lines and C++ guards go, declarations stay.
    let h = "#ifdef __cplusplus\nextern \"C\" {\n#endif\n#define A(x) \\\n  (x)\n/** doc; with ; */\nmcpgen_status mcpgen_a(const uint8_t *p, size_t n);\ntypedef struct s { int a; } s;\nvoid mcpgen_b(void);\n#ifdef __cplusplus\n}\n#endif\n";
    let f = header_functions(h);
    assert_eq!(f.keys().collect::<Vec<_>>(), ["mcpgen_a", "mcpgen_b"]);
    assert_eq!(f["mcpgen_a"].params[0], Shape { base: "uint8_t".into(), pointees_const: vec![true] });
    assert_eq!(c_shape("const mcpgen_error **e", true).pointees_const, [false, true]);
    let t: syn::Type = syn::parse_str("*mut *const ErrorObject").unwrap();
    assert_eq!(rust_shape(&t).pointees_const, [false, true]);
    assert!(std::panic::catch_unwind(|| header_functions("int x;")).is_err(), "an unknown declaration must fail");
}

#[test]
fn id_tables_follow_the_core() {
    assert_eq!(ids::REVISIONS.len(), Revision::all().len());
    for (i, r) in ids::REVISIONS.iter().enumerate() {
        assert_eq!(r.code as usize, i + 1);
        let rev = revision(r.code).unwrap();
        let core: Vec<&str> = rev.definitions().iter().map(|d| d.name).collect();
        let ours: Vec<&str> = r.definitions.iter().map(|d| unnul(d)).collect();
        assert_eq!(core, ours, "definition order of {}", unnul(r.name));
        assert!(r.name.ends_with('\0') && r.definitions.iter().all(|d| d.ends_with('\0')));
    }
    // Codes are the pins' `c_code` in schema/sources.toml (so they never move when a revision
    // is added, whatever its date).
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../schema/sources.toml");
    let sources = std::fs::read_to_string(path).unwrap();
    for r in ids::REVISIONS {
        let name = format!("name = \"{}\"", unnul(r.name));
        let pin = sources.split("[[revision]]").find(|pin| pin.contains(&name)).expect("every revision is pinned");
        assert!(
            pin.contains(&format!("\nc_code = {}\n", r.code)),
            "{} is not c_code {} in {path}",
            unnul(r.name),
            r.code
        );
    }
}

#[test]
fn boundary_turns_a_panic_into_a_status_and_an_error() {
    let mut err: *mut ErrorObject = std::ptr::null_mut();
    let status = boundary(&mut err, || panic!("boom"));
    assert_eq!(status, Status::Panic);
    assert!(!err.is_null());
    // SAFETY: just handed out by `boundary`.
    let e = unsafe { Box::from_raw(err) };
    let text = e.as_ref();
    assert_eq!(text.status, Status::Panic);
}

#[test]
fn strings_round_trip_with_nul_inside() {
    let s = c_string(b"a\0b");
    // SAFETY: from c_string, freed once.
    unsafe {
        assert_eq!(std::slice::from_raw_parts(s.cast::<u8>(), 4), b"a\0b\0");
        free_c_string(s);
    }
    let o = OwnedStr::new("x\0y");
    assert_eq!(o.as_c().len, 3);
    assert_eq!(OwnedStr::default().as_c().len, 0);
}

#[test]
fn status_names_and_descriptions_are_nul_terminated() {
    for &s in Status::ALL {
        assert!(s.name().ends_with('\0') && s.describe().ends_with('\0'));
        assert!(
            !s.name()[..s.name().len() - 1].contains('\0') && !s.describe()[..s.describe().len() - 1].contains('\0')
        );
        assert_eq!(Status::from_u32(s as u32), Some(s));
    }
    assert_eq!(Status::from_u32(99), None);
}

#[test]
fn image_codes_follow_the_core() {
    use core_api::icons::ImageType;
    for (code, t) in
        [(1, ImageType::Png), (2, ImageType::Jpeg), (3, ImageType::Gif), (4, ImageType::Webp), (5, ImageType::Svg)]
    {
        let mut out = McpgenStr::NULL;
        // SAFETY: a valid out-pointer.
        assert_eq!(unsafe { tools::mcpgen_image_mime(code, &mut out) }, Status::Ok);
        // SAFETY: a static NUL-terminated string of `len` bytes.
        let mime = unsafe { std::slice::from_raw_parts(out.ptr.cast::<u8>(), out.len) };
        assert_eq!(mime, t.mime().as_bytes(), "image code {code}");
        let mut sniffed = 99;
        let sample: &[u8] = match t {
            ImageType::Png => b"\x89PNG\r\n\x1a\n....",
            ImageType::Jpeg => b"\xff\xd8\xff\xe0",
            ImageType::Gif => b"GIF89a....",
            ImageType::Webp => b"RIFF\0\0\0\0WEBPVP8 ",
            ImageType::Svg => b"<svg xmlns=\"http://www.w3.org/2000/svg\"/>",
        };
        assert_eq!(core_api::icons::sniff(sample), Some(t), "sample for {t:?}");
        // SAFETY: valid input and out-pointer.
        assert_eq!(unsafe { tools::mcpgen_image_sniff(sample.as_ptr(), sample.len(), &mut sniffed) }, Status::Ok);
        assert_eq!(sniffed, code);
    }
}

//! Rust-side checks that the committed header and this library agree (the C test suite in
//! `tests/` checks behaviour through the real ABI).

use std::collections::BTreeMap;
use std::path::Path;

use super::*;

fn header() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("include/mcpgen.h");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Function declarations of the header: name → parameter count.
fn header_functions(h: &str) -> BTreeMap<String, usize> {
    // Strip comments, then read each `... mcpgen_x(...);` at top level.
    let mut text = String::new();
    let mut rest = h;
    while let Some(i) = rest.find("/*") {
        text.push_str(&rest[..i]);
        rest = rest[i..].find("*/").map_or("", |j| &rest[i + j + 2..]);
    }
    text.push_str(rest);
    let mut out = BTreeMap::new();
    for decl in text.split(';') {
        let decl = decl.trim();
        if decl.starts_with('#') || decl.contains("typedef") || decl.contains('{') || !decl.ends_with(')') {
            continue;
        }
        let Some(open) = decl.find('(') else { continue };
        let name =
            decl[..open].split(|c: char| !(c.is_alphanumeric() || c == '_')).rfind(|s| !s.is_empty()).unwrap_or("");
        let params = decl[open + 1..decl.len() - 1].trim();
        let count = if params == "void" { 0 } else { params.split(',').count() };
        if name.starts_with("mcpgen_") {
            out.insert(name.to_owned(), count);
        }
    }
    out
}

/// Exported functions of this crate: name → parameter count.
fn exported_functions() -> BTreeMap<String, usize> {
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
                    out.insert(f.sig.ident.to_string(), f.sig.inputs.len());
                }
            }
        }
    }
    out
}

#[test]
fn header_declares_exactly_the_exported_functions() {
    let declared = header_functions(&header());
    let exported = exported_functions();
    assert!(exported.len() > 40, "found only {} exports", exported.len());
    for (name, n) in &exported {
        match declared.get(name) {
            Some(m) => assert_eq!(m, n, "{name}: {n} parameters in Rust, {m} in mcpgen.h"),
            None => panic!("{name} is exported but not declared in mcpgen.h (codegen/src/emit/c_api.h)"),
        }
    }
    for name in declared.keys() {
        assert!(exported.contains_key(name), "{name} is declared in mcpgen.h but not exported");
    }
}

#[test]
fn header_status_codes_match() {
    let h = header();
    for &s in Status::ALL {
        let name = s.name().trim_end_matches('\0');
        let line = format!("{name} = {}", s as u32);
        assert!(h.contains(&line), "mcpgen.h lacks `{line}`");
    }
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
    // Codes follow date order, so a newer revision appends.
    let names: Vec<&str> = ids::REVISIONS.iter().map(|r| unnul(r.name)).collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
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

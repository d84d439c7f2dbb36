//! The shared library's ABI name. `cargo xtask dist` sets `MCPGEN_C_SONAME` (for example
//! `libmcpgen.so.0.1`) for the C archive, whose `lib/` holds the links that name resolves
//! through; a plain `cargo build` links no soname, so the tests and `install.sh` can use
//! `target/*/libmcpgen.so` as it is.
fn main() {
    println!("cargo:rerun-if-env-changed=MCPGEN_C_SONAME");
    let Ok(soname) = std::env::var("MCPGEN_C_SONAME") else { return };
    match std::env::var("CARGO_CFG_TARGET_OS").as_deref() {
        Ok("macos" | "ios") => println!("cargo:rustc-cdylib-link-arg=-Wl,-install_name,@rpath/{soname}"),
        Ok("windows") => {}
        _ => println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,{soname}"),
    }
}

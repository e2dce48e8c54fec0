//! Links the service binary with its debug sections compressed (zlib) on
//! Linux: the line tables that make a panic's backtrace name files and lines
//! are most of the binary's size, and the standard library's symbolizer reads
//! them compressed. They are never loaded into memory either way.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-link-arg-bins=-Wl,--compress-debug-sections=zlib");
    }
}

fn main() {
    napi_build::setup();
    require_static_crt_on_windows_msvc();
}

/// The Windows .node must not depend on the VC++ runtime DLLs (see .cargo/config.toml). That
/// table is silently ignored when RUSTFLAGS is set, so check the outcome, not the file: cargo
/// hands build scripts the target's features in CARGO_CFG_TARGET_FEATURE.
fn require_static_crt_on_windows_msvc() {
    println!("cargo:rerun-if-env-changed=RUSTFLAGS");
    println!("cargo:rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    if var("CARGO_CFG_TARGET_OS") != "windows" || var("CARGO_CFG_TARGET_ENV") != "msvc" {
        return;
    }
    let features = var("CARGO_CFG_TARGET_FEATURE");
    if !features.split(',').any(|feature| feature == "crt-static") {
        panic!(
            "nemo-lens: a Windows MSVC build must link the C runtime statically \
             (-C target-feature=+crt-static, set in .cargo/config.toml). RUSTFLAGS in the \
             environment replaces that file's flags: add the flag to RUSTFLAGS too."
        );
    }
}

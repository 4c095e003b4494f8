//! The napi-rs binding: a thin `NativeState` class over the pure core's `State`, shaped
//! exactly like `CoreState` in `src/backends/types.ts` so the facade can use either backend.
//!
//! Each JS realm creates its own `NativeState`, so no state is global here: a Rust `static`
//! would be shared by the main thread and every worker thread of the process.
//!
//! Every method is `catch_unwind`: a panic escaping an `extern "C"` callback aborts the
//! process, while a caught one becomes a thrown JS `Error`. (The release profile must keep
//! the default `panic = "unwind"` for this to work.)

#![deny(unsafe_code)]

use napi::bindgen_prelude::*;
use napi_derive::napi;
use nemo_lens_core::{Diagnostic, Outcome, Resolution, State};

#[napi(object, js_name = "Diagnostic")]
pub struct JsDiagnostic {
    pub code: String,
    pub message: String,
}

/// `error` is absent (undefined) unless the call was refused.
#[napi(object, js_name = "Outcome")]
pub struct JsOutcome {
    pub error: Option<JsDiagnostic>,
    pub warnings: Vec<JsDiagnostic>,
}

#[napi(object, js_name = "Resolution")]
pub struct JsResolution {
    pub enabled: Vec<String>,
    pub pending: Vec<String>,
}

impl From<Diagnostic> for JsDiagnostic {
    fn from(diagnostic: Diagnostic) -> Self {
        Self {
            code: diagnostic.code.to_owned(),
            message: diagnostic.message,
        }
    }
}

impl From<Outcome> for JsOutcome {
    fn from(outcome: Outcome) -> Self {
        Self {
            error: outcome.error.map(Into::into),
            warnings: outcome.warnings.into_iter().map(Into::into).collect(),
        }
    }
}

impl From<Resolution> for JsResolution {
    fn from(resolution: Resolution) -> Self {
        Self {
            enabled: resolution.enabled,
            pending: resolution.pending,
        }
    }
}

/// The caller's `Uint32Array`, borrowed for one call through napi's own `&mut [u32]`
/// conversion (which checks it is a Uint32Array). The alias is needed because `#[napi]`
/// reads a `&mut T` parameter as a reference to a class instance.
type WordsMut<'call> = &'call mut [u32];

/// JS numbers are doubles; ids never get near u32::MAX, but saturate rather than wrap.
fn to_js_count(count: usize) -> u32 {
    u32::try_from(count).unwrap_or(u32::MAX)
}

/// One realm's span-group registry and process state (see `CoreState`).
#[napi]
pub struct NativeState {
    inner: State,
}

impl Default for NativeState {
    fn default() -> Self {
        Self::new()
    }
}

#[napi]
impl NativeState {
    #[napi(constructor, catch_unwind)]
    pub fn new() -> Self {
        Self {
            inner: State::new(),
        }
    }

    /// `presets`: `null`/`undefined`, or an array of `[name, members]` pairs.
    #[napi(catch_unwind)]
    pub fn register(
        &mut self,
        namespace: String,
        groups: Vec<String>,
        presets: Option<Vec<(String, Vec<String>)>>,
        allow_override: bool,
    ) -> JsOutcome {
        self.inner
            .register(&namespace, &groups, presets.as_deref(), allow_override)
            .into()
    }

    #[napi(catch_unwind)]
    pub fn unregister(&mut self, namespace: String) -> JsOutcome {
        self.inner.unregister(&namespace).into()
    }

    #[napi(catch_unwind)]
    pub fn clear(&mut self) -> JsOutcome {
        self.inner.clear().into()
    }

    #[napi(js_name = "setSpec", catch_unwind)]
    pub fn set_spec(&mut self, spec: String) -> JsOutcome {
        self.inner.set_spec(&spec).into()
    }

    #[napi(catch_unwind)]
    pub fn pin(&mut self, names: Vec<String>) -> JsOutcome {
        self.inner.pin(&names).into()
    }

    #[napi(js_name = "setSetupDone", catch_unwind)]
    pub fn set_setup_done(&mut self, done: bool) {
        self.inner.set_setup_done(done);
    }

    #[napi(catch_unwind)]
    pub fn reset(&mut self) {
        self.inner.reset();
    }

    #[napi(catch_unwind)]
    pub fn groups(&self) -> Vec<String> {
        self.inner.groups()
    }

    #[napi(catch_unwind)]
    pub fn namespaces(&self) -> Vec<String> {
        self.inner.namespaces()
    }

    /// `[name, members]` pairs, `all` first.
    #[napi(catch_unwind)]
    pub fn presets(&self) -> Vec<(String, Vec<String>)> {
        self.inner.presets()
    }

    #[napi(catch_unwind)]
    pub fn resolve(&self, spec: String) -> JsResolution {
        self.inner.resolve(&spec).into()
    }

    #[napi(catch_unwind)]
    pub fn enabled(&self) -> Vec<String> {
        self.inner.enabled()
    }

    #[napi(catch_unwind)]
    pub fn pending(&self) -> Vec<String> {
        self.inner.pending()
    }

    #[napi(js_name = "nameCount", catch_unwind)]
    pub fn name_count(&self) -> u32 {
        to_js_count(self.inner.name_count())
    }

    #[napi(catch_unwind)]
    pub fn names(&self, from: u32) -> Vec<String> {
        self.inner.names(from as usize)
    }

    /// Fill the caller's `Uint32Array` during this call; no pointer to it is kept.
    /// Throws (writing nothing) when it is shorter than `ceil(nameCount / 32)` words.
    #[napi(
        js_name = "writeEnabled",
        ts_args_type = "bits: Uint32Array",
        catch_unwind
    )]
    pub fn write_enabled(&self, bits: WordsMut<'_>) -> Result<()> {
        self.inner
            .write_enabled(bits)
            .map_err(|too_short| Error::new(Status::InvalidArg, too_short.to_string()))
    }
}

/// Test-only (cargo feature `panic-probe`, never in a shipped build): a method that panics, so
/// scripts/soak-panic.sh can check that `catch_unwind` turns a panic into a thrown JS Error
/// and leaves the instance usable.
#[cfg(feature = "panic-probe")]
#[napi]
impl NativeState {
    #[napi(js_name = "panicProbe", catch_unwind)]
    pub fn panic_probe(&mut self, message: String) -> u32 {
        panic!("{message}");
    }
}

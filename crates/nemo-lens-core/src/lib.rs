//! nemo-lens core: the span-group registry, spec resolution and the enabled-group bitset,
//! with no Node-API in it. The napi-rs binding (`src/binding/lib.rs` at the workspace root)
//! wraps [`State`]; the TypeScript twin in `src/backends/js/` mirrors it name for name.

#![forbid(unsafe_code)]
// Every public type prints in assertion failures and `dbg!` (clippy -D warnings enforces it).
#![warn(missing_debug_implementations)]

pub mod messages;
pub mod normalize;
pub mod registry;
pub mod spec;
pub mod state;
pub mod suggest;
pub mod symbols;
pub mod wire;

pub use registry::PresetEntry;
pub use state::{BitsetTooShort, State};

/// A coded error or warning; the facade throws or emits it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub code: &'static str,
    pub message: String,
}

/// What a mutating call did: refused (`error`, state unchanged, no warnings) or warnings
/// in emission order (shared groups, preset members, late registration, spec report).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outcome {
    pub error: Option<Diagnostic>,
    pub warnings: Vec<Diagnostic>,
}

/// A spec resolved against the registry: groups it selects and tokens that name nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resolution {
    pub enabled: Vec<String>,
    pub pending: Vec<String>,
}

//! The napi-rs binding: a thin `NativeState` class over the pure core's `State`, one method
//! per `CoreState` operation (`src/backends/types.ts`) in a packed form that crosses napi
//! cheaply; `NativeCore` in `src/backends/native.ts` turns it back into `CoreState`.
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
use nemo_lens_core::wire::{split_utf16, BadLengths, Packed};
use nemo_lens_core::{Outcome, State};

/// The caller's `Uint32Array`, borrowed for one call through napi's own `&mut [u32]`
/// conversion (which checks it is a Uint32Array). The alias is needed because `#[napi]`
/// reads a `&mut T` parameter as a reference to a class instance.
type WordsMut<'call> = &'call mut [u32];

/// An outcome as few napi values as possible: `null` when the call warned nothing (the usual
/// case: no object is built), else `["error", code, message]` or `["warnings", code, message, …]`.
/// `src/backends/native.ts` turns it back into an `Outcome`.
type PackedOutcome = Option<Vec<String>>;

fn pack_outcome(outcome: Outcome) -> PackedOutcome {
    let (kind, diagnostics) = match outcome.error {
        Some(error) => ("error", vec![error]),
        None if outcome.warnings.is_empty() => return None,
        None => ("warnings", outcome.warnings),
    };
    let mut packed = Vec::with_capacity(1 + 2 * diagnostics.len());
    packed.push(kind.to_owned());
    for diagnostic in diagnostics {
        packed.push(diagnostic.code.to_owned());
        packed.push(diagnostic.message);
    }
    Some(packed)
}

/// `io[0]` says how many numbers follow it; the packed call reads them.
fn io_input(io: &[u32]) -> Result<&[u32]> {
    let count = *io.first().ok_or_else(malformed)? as usize;
    io.get(1..=count).ok_or_else(malformed)
}

/// A list of names out: the names joined into the returned string, `io[0]` their count and
/// `io[1..]` their UTF-16 lengths (after any header numbers). When `io` is too short, nothing
/// is written and the number of words it needs is returned instead of a string.
fn pack_out(packed: Packed, io: &mut [u32]) -> Either<String, u32> {
    let count = packed.lengths.len();
    if io.len() <= count {
        return Either::B(to_js_count(count + 1));
    }
    io[0] = to_js_count(count);
    io[1..=count].copy_from_slice(&packed.lengths);
    Either::A(packed.text)
}

fn malformed() -> Error {
    bad_lengths(BadLengths)
}

fn bad_lengths(error: BadLengths) -> Error {
    Error::new(Status::InvalidArg, error.to_string())
}

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

    #[napi(js_name = "setSetupDone", catch_unwind)]
    pub fn set_setup_done(&mut self, done: bool) {
        self.inner.set_setup_done(done);
    }

    #[napi(catch_unwind)]
    pub fn reset(&mut self) {
        self.inner.reset();
    }
}

/// The calls `src/backends/native.ts` makes, one per `CoreState` operation, with lists
/// of names passed as one string plus their UTF-16 lengths, outcomes that are `null` when there
/// is nothing to report, and one caller-owned `Uint32Array` (`io`, reused from call to call so
/// that no typed array is allocated per call) that carries the lengths in and out. Every
/// mutating call leaves the name count in `io[0]`, so that the caller needs no `nameCount()`.
#[napi]
impl NativeState {
    /// `io[1..]`: `[groupCount, presetCount, presetCount member counts…, one length per name…]`,
    /// the names in `text` in the order: groups, then each preset's name and its members.
    #[napi(
        js_name = "registerPacked",
        ts_args_type = "namespace: string, text: string, io: Uint32Array, allowOverride: boolean",
        catch_unwind
    )]
    pub fn register_packed(
        &mut self,
        namespace: String,
        text: String,
        io: WordsMut<'_>,
        allow_override: bool,
    ) -> Result<PackedOutcome> {
        let shape = io_input(io)?;
        let (&group_count, rest) = shape.split_first().ok_or_else(malformed)?;
        let (&preset_count, rest) = rest.split_first().ok_or_else(malformed)?;
        if rest.len() < preset_count as usize {
            return Err(malformed());
        }
        let (member_counts, lengths) = rest.split_at(preset_count as usize);
        let names = split_utf16(&text, lengths).map_err(bad_lengths)?;
        let mut names = names.iter().map(|name| name.as_ref());
        let groups: Vec<&str> = names.by_ref().take(group_count as usize).collect();
        let mut presets = Vec::with_capacity(member_counts.len());
        for &count in member_counts {
            let name = names.next().ok_or_else(malformed)?;
            presets.push((
                name,
                names.by_ref().take(count as usize).collect::<Vec<_>>(),
            ));
        }
        if groups.len() != group_count as usize
            || presets
                .iter()
                .zip(member_counts)
                .any(|((_, members), &count)| members.len() != count as usize)
            || names.next().is_some()
        {
            return Err(malformed());
        }
        let outcome = self
            .inner
            .register_names(&namespace, &groups, &presets, allow_override);
        Ok(self.finish(outcome, io))
    }

    #[napi(
        js_name = "unregisterPacked",
        ts_args_type = "namespace: string, io: Uint32Array",
        catch_unwind
    )]
    pub fn unregister_packed(&mut self, namespace: String, io: WordsMut<'_>) -> PackedOutcome {
        let outcome = self.inner.unregister(&namespace);
        self.finish(outcome, io)
    }

    #[napi(
        js_name = "clearPacked",
        ts_args_type = "io: Uint32Array",
        catch_unwind
    )]
    pub fn clear_packed(&mut self, io: WordsMut<'_>) -> PackedOutcome {
        let outcome = self.inner.clear();
        self.finish(outcome, io)
    }

    #[napi(
        js_name = "setSpecPacked",
        ts_args_type = "spec: string, io: Uint32Array",
        catch_unwind
    )]
    pub fn set_spec_packed(&mut self, spec: String, io: WordsMut<'_>) -> PackedOutcome {
        let outcome = self.inner.set_spec(&spec);
        self.finish(outcome, io)
    }

    /// `io[1..]`: one length per name in `text`.
    #[napi(
        js_name = "pinPacked",
        ts_args_type = "text: string, io: Uint32Array",
        catch_unwind
    )]
    pub fn pin_packed(&mut self, text: String, io: WordsMut<'_>) -> Result<PackedOutcome> {
        let names = split_utf16(&text, io_input(io)?).map_err(bad_lengths)?;
        let names: Vec<&str> = names.iter().map(|name| name.as_ref()).collect();
        let outcome = self.inner.pin_names(&names);
        Ok(self.finish(outcome, io))
    }

    #[napi(
        js_name = "groupsPacked",
        ts_args_type = "io: Uint32Array",
        ts_return_type = "string | number",
        catch_unwind
    )]
    pub fn groups_packed(&self, io: WordsMut<'_>) -> Either<String, u32> {
        pack_out(self.inner.group_names().collect(), io)
    }

    #[napi(
        js_name = "namespacesPacked",
        ts_args_type = "io: Uint32Array",
        ts_return_type = "string | number",
        catch_unwind
    )]
    pub fn namespaces_packed(&self, io: WordsMut<'_>) -> Either<String, u32> {
        pack_out(
            self.inner.namespaces().iter().map(String::as_str).collect(),
            io,
        )
    }

    #[napi(
        js_name = "enabledPacked",
        ts_args_type = "io: Uint32Array",
        ts_return_type = "string | number",
        catch_unwind
    )]
    pub fn enabled_packed(&self, io: WordsMut<'_>) -> Either<String, u32> {
        pack_out(
            self.inner.enabled().iter().map(String::as_str).collect(),
            io,
        )
    }

    #[napi(
        js_name = "pendingPacked",
        ts_args_type = "io: Uint32Array",
        ts_return_type = "string | number",
        catch_unwind
    )]
    pub fn pending_packed(&self, io: WordsMut<'_>) -> Either<String, u32> {
        pack_out(
            self.inner.pending().iter().map(String::as_str).collect(),
            io,
        )
    }

    #[napi(
        js_name = "namesPacked",
        ts_args_type = "from: number, io: Uint32Array",
        ts_return_type = "string | number",
        catch_unwind
    )]
    pub fn names_packed(&self, from: u32, io: WordsMut<'_>) -> Either<String, u32> {
        let names = self.inner.names_from(from as usize);
        if io.len() <= names.len() {
            return Either::B(to_js_count(names.len() + 1));
        }
        pack_out(names.collect(), io)
    }

    /// Out: `[presetCount, presetCount member counts…, then per preset its name's length and
    /// its members' lengths]`.
    #[napi(
        js_name = "presetsPacked",
        ts_args_type = "io: Uint32Array",
        ts_return_type = "string | number",
        catch_unwind
    )]
    pub fn presets_packed(&self, io: WordsMut<'_>) -> Either<String, u32> {
        let presets = self.inner.presets();
        let mut packed = Packed::with_capacity(1 + 2 * presets.len());
        packed.push_number(presets.len());
        for (_, members) in &presets {
            packed.push_number(members.len());
        }
        for (name, members) in &presets {
            packed.push(name);
            members.iter().for_each(|member| packed.push(member));
        }
        pack_out(packed, io)
    }

    /// `writeEnabled` into `io[..words]` (the caller copies them out): the caller's own
    /// bitset is usually a fresh, small typed array, which V8 must first move off its heap
    /// for napi to hand it over (0.9 µs, against 0.3 µs for the long-lived `io`). Throws, as
    /// `writeEnabled` does, when `words` is less than `ceil(nameCount / 32)`.
    #[napi(
        js_name = "writeEnabledPacked",
        ts_args_type = "io: Uint32Array, words: number",
        catch_unwind
    )]
    pub fn write_enabled_packed(&self, io: WordsMut<'_>, words: u32) -> Result<()> {
        let bits = io.get_mut(..words as usize).ok_or_else(|| {
            Error::new(
                Status::InvalidArg,
                "nemo-lens: io is shorter than the bitset".to_owned(),
            )
        })?;
        self.write_words(bits)
    }

    /// Out: `[enabledCount, the enabled names' lengths…, the pending tokens' lengths…]`.
    #[napi(
        js_name = "resolvePacked",
        ts_args_type = "spec: string, io: Uint32Array",
        ts_return_type = "string | number",
        catch_unwind
    )]
    pub fn resolve_packed(&self, spec: String, io: WordsMut<'_>) -> Either<String, u32> {
        let resolution = self.inner.resolve(&spec);
        let mut packed =
            Packed::with_capacity(1 + resolution.enabled.len() + resolution.pending.len());
        packed.push_number(resolution.enabled.len());
        for name in resolution.enabled.iter().chain(&resolution.pending) {
            packed.push(name);
        }
        pack_out(packed, io)
    }
}

impl NativeState {
    /// Wrapped by the packed calls below, for `writeEnabled` into `io`.
    fn write_words(&self, bits: &mut [u32]) -> Result<()> {
        self.inner
            .write_enabled(bits)
            .map_err(|too_short| Error::new(Status::InvalidArg, too_short.to_string()))
    }

    /// The packed outcome, with the name count left in `io[0]` (`io` is never empty: it held
    /// the input count, or the caller passed at least one word).
    fn finish(&self, outcome: Outcome, io: &mut [u32]) -> PackedOutcome {
        if let Some(count) = io.first_mut() {
            *count = to_js_count(self.inner.name_count());
        }
        pack_outcome(outcome)
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

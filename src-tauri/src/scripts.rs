//! How the page's JavaScript runs: without JavaScriptCore's optimising JITs.
//!
//! JavaScriptCore runs a script in tiers: an interpreter, a baseline JIT,
//! then two optimising JITs (DFG, and FTL above it) that compile a function
//! again once it has run hot, and keep what they need for it. The window's
//! scripts are forms, lists, charts and an editor. Measured on the shared
//! corpus with `tests/e2e/measure.rs` (two runs each way), turning the
//! optimising tiers off (`JSC_useDFGJIT=0`) left every timing the window takes
//! of itself within run-to-run noise: a keystroke to fresh findings (median
//! 18–20 ms against 21–32), a test-query keystroke to its re-ranked list
//! (18–19 against 18–20), the token costs tab's bars for 1,821 skills shown
//! again (204–220 ms against 394–536). It takes some 9 MB off the web process
//! (215 to 206 MB of RSS on the bundled library). The interpreter and
//! baseline JIT alone are kept: with no JIT at all (`JSC_useJIT=0`, 19 MB
//! off) the costs tab's bars took 1,003 ms.
//!
//! The variable is inherited by WebKit's processes; a value already set is
//! kept, so `JSC_useDFGJIT=1` turns the tiers back on.

/// Turns JavaScriptCore's optimising JITs off unless `JSC_useDFGJIT` is set
/// (see the module's doc).
///
/// # Safety
///
/// Sets an environment variable: call it before any other thread starts
/// (first thing in `main`), as no thread may read the environment meanwhile.
pub unsafe fn skip_optimising_jits() {
    if std::env::var_os("JSC_useDFGJIT").is_none() {
        // SAFETY: the caller guarantees no other thread exists yet.
        unsafe { std::env::set_var("JSC_useDFGJIT", "0") };
    }
}

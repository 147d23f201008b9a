//! Process trees on macOS and other Unix without `/proc` or a parent-death signal: the
//! process group is all there is (see the seam's documentation).

/// Not listed here: empty.
pub(super) fn descendants(_root: u32) -> Vec<u32> {
    Vec::new()
}

/// Nothing to set: no parent-death signal. Servers still running are killed when the host
/// exits through `kill_all_server_groups`.
pub(super) fn tie_to_parent(_cmd: &mut tokio::process::Command) {}

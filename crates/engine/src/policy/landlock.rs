//! The Landlock half of the Landlock sandbox backend: restricting the calling thread (and the
//! processes it starts afterwards) to read-only access outside the writable roots, no TCP
//! bind/connect unless allowed, and (ABI 6+) no signals or abstract UNIX sockets outside the
//! sandbox.
//!
//! The kernel's ABI is detected with the `landlock_create_ruleset` version query (securityfs
//! need not be mounted). Every access requested is a hard requirement: the ruleset is enforced
//! fully or not at all, and [`restrict_self`] reports exactly what it enforced.
//!
//! What Landlock cannot deny: no access right of any ABI (1 to 10) covers metadata changes, so
//! `chmod`, `chown`, `utimensat` and `setxattr`/`removexattr` (and their `f*`/`l*`/`*at`
//! forms) still work on files outside the roots wherever the user's own permissions allow them
//! (files the user owns, or may write for `touch` and user xattrs). Seccomp cannot tell inside
//! from outside (it sees no paths), and denying those calls everywhere would break `chmod +x`,
//! `touch`, `tar x` and package installs inside the roots, so they stay allowed and
//! [`Guarantees::unconfined_outside_roots`] names them, along with what older ABIs lack
//! (`truncate` before ABI 3, device `ioctl` before ABI 5, connecting to pathname UNIX sockets
//! before ABI 9). The bubblewrap backend (read-only bind of `/`) denies all of these.

use std::path::Path;

use landlock::{
    path_beneath_rules, Access, AccessFs, AccessNet, CompatLevel, Compatible, Ruleset, RulesetAttr,
    RulesetCreatedAttr, RulesetStatus, Scope, ABI,
};
use serde::Serialize;

/// Why the Landlock sandbox cannot be set up.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LandlockError {
    /// The kernel has no Landlock (or it is disabled).
    #[error("landlock is not available on this kernel")]
    Unavailable,
    /// Denying network access needs ABI 4 (Linux 6.7).
    #[error("landlock ABI {abi} cannot deny network access (ABI 4 or later is needed)")]
    NetworkUnsupported {
        /// The kernel's ABI.
        abi: i32,
    },
    /// Building or enforcing the ruleset failed.
    #[error("landlock ruleset failed: {message}")]
    Ruleset {
        /// The library's message.
        message: String,
    },
}

impl LandlockError {
    /// `ERR_PRISM_SANDBOX_UNAVAILABLE` when the kernel lacks what was asked, otherwise
    /// `ERR_PRISM_SANDBOX_EXECUTION`.
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            Self::Unavailable | Self::NetworkUnsupported { .. } => "ERR_PRISM_SANDBOX_UNAVAILABLE",
            Self::Ruleset { .. } => "ERR_PRISM_SANDBOX_EXECUTION",
        }
    }
}

/// What a restriction enforces.
#[derive(Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Guarantees {
    /// The kernel's Landlock ABI.
    pub abi: i32,
    /// Writes only beneath the writable paths (plus `/dev/null`, `/dev/zero`, `/dev/tty`).
    pub filesystem_writes_confined: bool,
    /// TCP bind and connect denied (UDP and UNIX sockets are not covered by Landlock).
    pub tcp_denied: bool,
    /// Signals and abstract UNIX sockets confined to the sandbox (ABI 6+).
    pub ipc_scoped: bool,
    /// Metadata changes (mode, owner, times, extended attributes) confined to the writable
    /// paths: always `false`, no Landlock ABI has access rights for them.
    pub metadata_changes_confined: bool,
    /// Operations on files outside the writable paths that this ABI's Landlock does not deny
    /// (see the module documentation), by system-call family.
    pub unconfined_outside_roots: Vec<&'static str>,
    /// What the network restriction covers, in words (`capabilities.networkScope`).
    pub network_scope: &'static str,
}

/// `capabilities.networkScope` of a sandbox at ABI `version`: the host network, or TCP
/// denied with what is not (UDP, and pathname UNIX sockets before ABI 9).
#[must_use]
pub fn network_scope(version: i32, tcp_denied: bool) -> &'static str {
    match (tcp_denied, version < 9) {
        (false, _) => "host network",
        (true, true) => "tcp bind and connect denied; UDP and UNIX sockets are not restricted",
        (true, false) => "tcp bind and connect denied; UDP is not restricted",
    }
}

/// The metadata-changing system-call families no Landlock ABI can deny.
const METADATA_CALLS: [&str; 5] = ["chmod", "chown", "utimes", "setxattr", "removexattr"];

/// What Landlock at ABI `version` leaves allowed on files outside the writable paths.
#[must_use]
pub fn unconfined_outside_roots(version: i32) -> Vec<&'static str> {
    let mut out = METADATA_CALLS.to_vec();
    if version < 3 {
        out.push("truncate");
    }
    if version < 5 {
        out.push("ioctl on devices");
    }
    if version < 9 {
        out.push("connect to pathname UNIX sockets");
    }
    out
}

/// Whether Landlock at ABI `version` can give the sandbox asked for (TCP denied unless
/// `allow_network`).
///
/// # Errors
/// [`LandlockError::Unavailable`] below ABI 1, [`LandlockError::NetworkUnsupported`] when the
/// network must be denied below ABI 4.
pub fn check_support(version: i32, allow_network: bool) -> Result<(), LandlockError> {
    if version < 1 {
        return Err(LandlockError::Unavailable);
    }
    if !allow_network && version < 4 {
        return Err(LandlockError::NetworkUnsupported { abi: version });
    }
    Ok(())
}

/// The kernel's Landlock ABI version, 0 when Landlock is unavailable.
#[must_use]
pub fn abi_version() -> i32 {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_long = 1;
    // SAFETY: the version query takes no attribute pointer (NULL, size 0) and only returns an
    // integer; it has no memory effects.
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    i32::try_from(v).unwrap_or(0).max(0)
}

fn abi_enum(v: i32) -> ABI {
    match v {
        ..=0 => ABI::Unsupported,
        1 => ABI::V1,
        2 => ABI::V2,
        3 => ABI::V3,
        4 => ABI::V4,
        5 => ABI::V5,
        6 => ABI::V6,
        7 => ABI::V7,
        8 => ABI::V8,
        9 => ABI::V9,
        _ => ABI::V10,
    }
}

fn ruleset_error(e: impl std::fmt::Display) -> LandlockError {
    LandlockError::Ruleset {
        message: e.to_string(),
    }
}

/// Restricts the calling thread and its future children: read and execute everywhere, write
/// only beneath `writable`, no TCP unless `allow_network`.
///
/// # Errors
/// [`LandlockError::Unavailable`] without Landlock, [`LandlockError::NetworkUnsupported`] when
/// the network must be denied on ABI < 4, [`LandlockError::Ruleset`] when enforcement fails.
pub fn restrict_self(writable: &[&Path], allow_network: bool) -> Result<Guarantees, LandlockError> {
    let version = abi_version();
    check_support(version, allow_network)?;
    let abi = abi_enum(version);
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_all(abi))
        .map_err(ruleset_error)?;
    if !allow_network {
        ruleset = ruleset
            .handle_access(AccessNet::from_all(abi))
            .map_err(ruleset_error)?;
    }
    let scoped = version >= 6;
    if scoped {
        ruleset = ruleset.scope(Scope::from_all(abi)).map_err(ruleset_error)?;
    }
    let devices: Vec<&Path> = ["/dev/null", "/dev/zero", "/dev/tty"]
        .iter()
        .map(Path::new)
        .filter(|p| p.exists())
        .collect();
    let status = ruleset
        .create()
        .map_err(ruleset_error)?
        .add_rules(path_beneath_rules(["/"], AccessFs::from_read(abi)))
        .map_err(ruleset_error)?
        .add_rules(path_beneath_rules(devices, AccessFs::from_file(abi)))
        .map_err(ruleset_error)?
        .add_rules(path_beneath_rules(writable, AccessFs::from_all(abi)))
        .map_err(ruleset_error)?
        .restrict_self()
        .map_err(ruleset_error)?;
    if status.ruleset != RulesetStatus::FullyEnforced {
        return Err(LandlockError::Ruleset {
            message: format!("ruleset only {:?}", status.ruleset),
        });
    }
    Ok(Guarantees {
        abi: version,
        filesystem_writes_confined: true,
        tcp_denied: !allow_network,
        ipc_scoped: scoped,
        metadata_changes_confined: false,
        unconfined_outside_roots: unconfined_outside_roots(version),
        network_scope: network_scope(version, !allow_network),
    })
}

/// Replaces the calling process with `shell -c command` under Landlock ([`restrict_self`]),
/// set to be killed when its parent dies. Returns only when that fails.
#[must_use]
pub fn exec_restricted(
    writable: &[&Path],
    allow_network: bool,
    shell: &str,
    command: &str,
) -> LandlockError {
    use std::os::unix::process::CommandExt;
    if let Err(e) =
        rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL))
    {
        return ruleset_error(format!("PR_SET_PDEATHSIG: {e}"));
    }
    if let Err(e) = restrict_self(writable, allow_network) {
        return e;
    }
    // The host runtime may have marked the standard streams close-on-exec and non-blocking;
    // the shell needs them open and blocking.
    use std::os::fd::AsFd;
    for fd in [
        std::io::stdin().as_fd(),
        std::io::stdout().as_fd(),
        std::io::stderr().as_fd(),
    ] {
        let _ = rustix::io::fcntl_setfd(fd, rustix::io::FdFlags::empty());
        if let Ok(flags) = rustix::fs::fcntl_getfl(fd) {
            let _ = rustix::fs::fcntl_setfl(fd, flags - rustix::fs::OFlags::NONBLOCK);
        }
    }
    let e = std::process::Command::new(shell)
        .arg("-c")
        .arg(command)
        .exec();
    ruleset_error(format!("exec {shell}: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn support_needs_abi_1_and_abi_4_to_deny_the_network() {
        assert!(matches!(
            check_support(0, true),
            Err(LandlockError::Unavailable)
        ));
        assert!(matches!(
            check_support(3, false),
            Err(LandlockError::NetworkUnsupported { abi: 3 })
        ));
        assert!(check_support(3, true).is_ok());
        assert!(check_support(4, false).is_ok());
    }

    #[test]
    fn abi_is_queried_without_securityfs() {
        let v = abi_version();
        assert!(v >= 0);
        assert_eq!(abi_enum(0), ABI::Unsupported);
        assert_eq!(abi_enum(7), ABI::V7);
        assert_eq!(abi_enum(99), ABI::V10);
    }

    #[test]
    fn unconfined_operations_follow_the_abi() {
        assert_eq!(
            unconfined_outside_roots(7),
            [
                "chmod",
                "chown",
                "utimes",
                "setxattr",
                "removexattr",
                "connect to pathname UNIX sockets"
            ]
        );
        assert!(unconfined_outside_roots(1).contains(&"truncate"));
        assert!(unconfined_outside_roots(4).contains(&"ioctl on devices"));
        assert!(!unconfined_outside_roots(5).contains(&"ioctl on devices"));
        assert_eq!(unconfined_outside_roots(10), METADATA_CALLS);
    }

    /// Restricts a dedicated thread (which then exits; the test runner stays unrestricted) and
    /// checks that a write
    /// outside the writable root fails while one inside succeeds, and TCP bind is denied.
    #[test]
    fn restricted_child_cannot_write_outside() {
        if abi_version() < 4 {
            return; // the JS sandbox suite reports the missing kernel support
        }
        let base = std::env::temp_dir().join(format!("prism-landlock-{}", std::process::id()));
        let inside = base.join("in");
        let _ = std::fs::create_dir_all(&inside);
        let outside = base.join("out.txt");
        let inside_file = inside.join("ok.txt");
        let (inside2, outside2, inside_file2) =
            (inside.clone(), outside.clone(), inside_file.clone());
        let handle = std::thread::spawn(move || {
            let g = restrict_self(&[inside2.as_path()], false);
            let w_in = std::fs::write(&inside_file2, b"x").is_ok();
            let w_out = std::fs::write(&outside2, b"x").is_ok();
            let tcp = std::net::TcpListener::bind("127.0.0.1:0").is_ok();
            (g.is_ok(), w_in, w_out, tcp)
        });
        let result = handle.join().ok();
        let _ = std::fs::remove_dir_all(&base);
        assert_eq!(result, Some((true, true, false, false)));
    }
}

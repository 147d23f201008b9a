//! Landlock on Linux: the ABI query, the ruleset and the restricted exec.

use std::path::Path;

use landlock::{
    path_beneath_rules, Access, AccessFs, AccessNet, CompatLevel, Compatible, Ruleset, RulesetAttr,
    RulesetCreatedAttr, RulesetStatus, Scope, ABI,
};

use super::{
    check_support, network_scope, read_only_root, unconfined_outside_roots, Guarantees,
    LandlockError,
};

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
    let unconfined = unconfined_outside_roots(version);
    Ok(Guarantees {
        abi: version,
        filesystem_writes_confined: true,
        read_only_root: read_only_root(true, &unconfined),
        tcp_denied: !allow_network,
        ipc_scoped: scoped,
        metadata_changes_confined: false,
        unconfined_outside_roots: unconfined,
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
    fn abi_is_queried_without_securityfs() {
        let v = abi_version();
        assert!(v >= 0);
        assert_eq!(abi_enum(0), ABI::Unsupported);
        assert_eq!(abi_enum(7), ABI::V7);
        assert_eq!(abi_enum(99), ABI::V10);
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

//! No process left behind (Linux): the commands that start a server (`proxy -- CMD`,
//! `probe -- CMD`) make this process a *child subreaper* before they start it, so every
//! descendant the server leaves — a background child, a daemon that called `setsid` to leave
//! the server's process group and session — becomes this process's child when its parent dies,
//! and [`end_descendants`] ends them all when the server's time is over.
//!
//! What it cannot reach: a descendant left by a process that was itself killed with SIGKILL
//! (nothing runs then; the server itself dies with the proxy through `PR_SET_PDEATHSIG`, its
//! descendants go to the next subreaper or init). docs/security.md says so.
//!
//! Only a binary may call these: [`end_descendants`] kills *every* child of the process, which
//! in a test harness or a library user would be someone else's.

/// Rounds of [`end_descendants`]: each kills one generation (the orphans of the round before
/// become children only once their parents are dead), so this bounds the depth of a process
/// tree it ends.
pub const MAX_ROUNDS: usize = 64;

/// Makes this process the subreaper of its future descendants (Linux; elsewhere nothing).
pub fn become_subreaper() {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    // SAFETY: prctl(2) with an integer argument; no memory is involved.
    unsafe {
        // Failing leaves the old behaviour (orphans go to init): nothing to report.
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    }
}

/// Kills every child of this process and the process group each one leads, reaps them, and
/// goes on with the orphans that become children meanwhile, until none is left (at most
/// [`MAX_ROUNDS`] rounds). Returns how many processes it ended.
pub fn end_descendants() -> usize {
    let mut ended = 0;
    for _ in 0..MAX_ROUNDS {
        let children = children();
        if children.is_empty() {
            break;
        }
        for &pid in &children {
            // SAFETY: kill(2) and waitpid(2) on our own unreaped children (a child's id is not
            // reused before we reap it); a negative pid signals the group it leads, if any.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
                libc::kill(pid, libc::SIGKILL);
            }
        }
        for &pid in &children {
            let mut status = 0;
            // SAFETY: as above; `status` is a valid out pointer.
            if unsafe { libc::waitpid(pid, &mut status, 0) } == pid {
                ended += 1;
            }
        }
    }
    ended
}

/// This process's children: every process whose parent is this one (`/proc/PID/stat`, field 4).
fn children() -> Vec<libc::pid_t> {
    let me = std::process::id().to_string();
    let Ok(dir) = std::fs::read_dir("/proc") else { return Vec::new() };
    let mut out = Vec::new();
    for entry in dir.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.parse::<libc::pid_t>().ok()) else { continue };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        // `pid (comm) state ppid …`: comm may hold spaces and parentheses, so read after the last `)`.
        let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else { continue };
        if rest.split_whitespace().nth(1) == Some(me.as_str()) {
            out.push(pid);
        }
    }
    out
}

/// Set by [`end_all_on_signal`]'s thread before it ends the descendants.
static STOPPING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Waits for the end of the process when a signal is stopping it ([`end_all_on_signal`]): a
/// run whose server was just ended by the signal thread would otherwise report the closed
/// connection ("cannot probe") and exit with its own status first. Returns at once otherwise.
pub fn wait_if_stopping() {
    while STOPPING.load(std::sync::atomic::Ordering::SeqCst) {
        std::thread::park();
    }
}

/// Ends the process on SIGTERM, SIGINT or SIGHUP after [`end_descendants`], with the shell's
/// status for the signal (128 + its number), saying so on stderr as `command`. For a command
/// whose server has no say in how it stops (the probe); the proxy forwards signals instead
/// ([`crate::proxy`]).
pub fn end_all_on_signal(command: &'static str) -> std::io::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGTERM, SIGINT, SIGHUP])?;
    std::thread::Builder::new().name("mcpgen-signals".into()).spawn(move || {
        if let Some(signal) = signals.forever().next() {
            // First: the run, seeing its server die, must not report that and exit on its own.
            STOPPING.store(true, std::sync::atomic::Ordering::SeqCst);
            let ended = end_descendants();
            eprintln!("{command}: stopped by signal {signal}; ended {ended} process(es) it had started");
            std::process::exit(128 + signal);
        }
    })?;
    Ok(())
}

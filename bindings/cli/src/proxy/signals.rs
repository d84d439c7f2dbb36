//! The server's life is bound to the proxy's (Unix).
//!
//! - SIGTERM, SIGINT and SIGHUP sent to the proxy are forwarded to the server, which decides
//!   what to do with them; the proxy goes on relaying until the server exits, then exits like
//!   it. Their handlers are installed before the server starts, so none is lost in between.
//! - Linux: the server is started with `PR_SET_PDEATHSIG` = SIGKILL, so it is killed when the
//!   proxy dies without the chance to forward anything (SIGKILL, a crash). Elsewhere the server
//!   stays in the proxy's process group, where a signal to the group (`kill -- -PGID`, a
//!   terminal's Ctrl-C) reaches both.
//! - A signal is forwarded only while the server has not been reaped, so a recycled process id
//!   never gets it: the main thread waits for the server's exit without reaping it (`waitid`
//!   with `WNOWAIT`), marks it gone, then reaps it.

use std::io;
use std::process::{Child, Command, ExitStatus};
use std::sync::{Arc, Mutex, PoisonError};

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

/// The signals forwarded to the server.
pub const FORWARDED: [i32; 3] = [SIGTERM, SIGINT, SIGHUP];

/// Handlers for [`FORWARDED`], installed: signals that arrive before the server runs wait.
pub struct Pending(Signals);

/// Installs the handlers (before the server starts).
pub fn catch() -> io::Result<Pending> {
    Signals::new(FORWARDED).map(Pending)
}

/// The server's process while it may receive signals.
pub struct Server {
    pid: libc::pid_t,
    /// Set once the server exited (before it is reaped): nothing is sent any more.
    exited: Mutex<bool>,
}

impl Pending {
    /// Forwards every caught signal (also those caught already) to `child` from a thread of
    /// its own, until the server has exited.
    pub fn forward_to(self, child: &Child) -> io::Result<Arc<Server>> {
        let pid = libc::pid_t::try_from(child.id()).map_err(|_| io::Error::other("process id out of range"))?;
        let server = Arc::new(Server { pid, exited: Mutex::new(false) });
        let target = Arc::clone(&server);
        let mut signals = self.0;
        std::thread::Builder::new().name("mcpgen-proxy-signals".into()).spawn(move || {
            for signal in signals.forever() {
                let exited = target.exited.lock().unwrap_or_else(PoisonError::into_inner);
                if *exited {
                    break;
                }
                // SAFETY: kill(2) with a process id that is our unreaped child (checked under
                // the lock that `wait` takes before reaping it).
                unsafe {
                    libc::kill(target.pid, signal);
                }
            }
        })?;
        Ok(server)
    }
}

impl Server {
    /// Waits for the server to exit, stops forwarding, and reaps it.
    pub fn wait(&self, child: &mut Child) -> io::Result<ExitStatus> {
        #[cfg(any(target_os = "linux", target_os = "android"))]
        loop {
            // SAFETY: waitid on our own child into a zeroed siginfo_t; WNOWAIT leaves it
            // unreaped (its process id stays ours until `child.wait()` below).
            let r = unsafe {
                let mut info: libc::siginfo_t = std::mem::zeroed();
                libc::waitid(libc::P_PID, self.pid as libc::id_t, &mut info, libc::WEXITED | libc::WNOWAIT)
            };
            if r == 0 || io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
                break;
            }
        }
        *self.exited.lock().unwrap_or_else(PoisonError::into_inner) = true;
        child.wait()
    }
}

/// Linux: the server gets SIGKILL when the thread that started it ends — the proxy's main
/// thread, which lives as long as the proxy.
#[cfg(any(target_os = "linux", target_os = "android"))]
pub fn die_with_parent(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    let parent = libc::pid_t::try_from(std::process::id()).unwrap_or(0);
    // SAFETY: the hook runs in the forked child before exec and only makes async-signal-safe
    // calls (prctl, getppid) that allocate nothing.
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(io::Error::last_os_error());
            }
            // The proxy may have died before the prctl: then the server would be left behind.
            if libc::getppid() != parent {
                return Err(io::Error::from_raw_os_error(libc::ESRCH));
            }
            Ok(())
        });
    }
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
pub fn die_with_parent(_command: &mut Command) {}

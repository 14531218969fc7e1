//! A `cargo xtask debug` server for a test: started on a free port, its
//! URL read from the first line it prints, stopped when dropped. (Each
//! test crate that includes it uses a part of it.)
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// A running debugger.
pub struct Server {
    child: Child,
    /// `http://127.0.0.1:PORT/`.
    pub url: String,
    /// Its process group is its own (ended as a whole).
    group: bool,
}

impl Server {
    /// `cargo xtask debug ARGS --port 0`.
    pub fn start(args: &[&str]) -> Server {
        let mut command = Command::new(env!("CARGO_BIN_EXE_xtask"));
        command.env("MINIDIST_REEXEC", "0");
        Server::spawn(command, args, false)
    }

    /// `cargo xtask debug ARGS --port 0` allowed to rebuild itself (a
    /// planted bug's counterexample needs the build with the bugs compiled
    /// in, `target/with-planted`), in a process group of its own, so the
    /// optimized child it runs ends with it.
    pub fn start_rebuilt(args: &[&str]) -> Server {
        use std::os::unix::process::CommandExt;
        let mut command = Command::new(env!("CARGO_BIN_EXE_xtask"));
        command.env_remove("MINIDIST_REEXEC").process_group(0);
        Server::spawn(command, args, true)
    }

    /// Runs `command debug ARGS --port 0` and reads the URL it prints.
    fn spawn(mut command: Command, args: &[&str], group: bool) -> Server {
        let mut child = command
            .arg("debug")
            .args(args)
            .args(["--port", "0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("xtask debug starts");
        let stdout = child.stdout.take().expect("piped stdout");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("the debugger prints its URL");
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://127.0.0.1:"))
            .unwrap_or_else(|| panic!("no URL in {line:?}"))
            .to_owned();
        Server { child, url, group }
    }

    /// The host and port.
    pub fn host(&self) -> &str {
        self.url.trim_start_matches("http://").trim_end_matches('/')
    }

    /// `METHOD path`: the status code and the body.
    pub fn request(&self, method: &str, path: &str) -> (u16, String) {
        crate::http::request(self.host(), method, path).expect("the debugger answers")
    }

    /// True while the process runs.
    pub fn alive(&mut self) -> bool {
        self.child.try_wait().expect("wait").is_none()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if self.group {
            let _ = Command::new("kill")
                .args(["--", &format!("-{}", self.child.id())])
                .status();
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

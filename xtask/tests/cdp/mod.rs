//! A small client of Chromium's DevTools protocol, for the browser tests
//! that click: start headless Chromium with a debugging port, open a page,
//! evaluate JavaScript, click an element with real mouse events at its
//! position, wait for a condition, take a screenshot.

use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How Chromium runs in a test: headless, and quiet on a closed network
/// (without the background-networking flags it keeps dialling out).
pub const HEADLESS: [&str; 8] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
];

/// How long a wait may take.
const PATIENCE: Duration = Duration::from_secs(30);

/// The Chromium binary: `CHROMIUM`, else `chromium` or `chromium-browser`.
pub fn chromium() -> String {
    if let Ok(name) = std::env::var("CHROMIUM") {
        return name;
    }
    for name in ["chromium", "chromium-browser"] {
        let found = Command::new(name)
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if found {
            return name.to_owned();
        }
    }
    panic!("no Chromium: install it (Debian: apt-get install -y chromium) or set CHROMIUM");
}

/// A headless Chromium and the one page it shows.
pub struct Browser {
    child: Child,
    profile: PathBuf,
    socket: tungstenite::WebSocket<TcpStream>,
    next: u64,
}

impl Browser {
    /// Starts Chromium with a `width`×`height` window.
    pub fn start(width: u32, height: u32) -> Browser {
        let profile = std::env::temp_dir().join(format!(
            "minidist-cdp-{}-{}",
            std::process::id(),
            std::thread::current()
                .name()
                .unwrap_or("t")
                .replace("::", "-")
        ));
        let _ = std::fs::remove_dir_all(&profile);
        let mut child = Command::new(chromium())
            .args(HEADLESS)
            .args(["--hide-scrollbars", "--remote-debugging-port=0"])
            .arg(format!("--window-size={width},{height}"))
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg("about:blank")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("chromium starts");
        let stderr = child.stderr.take().expect("piped stderr");
        let mut lines = BufReader::new(stderr).lines();
        let port = loop {
            let line = lines
                .next()
                .expect("chromium prints its DevTools address")
                .expect("a line");
            if let Some(rest) = line.split("ws://127.0.0.1:").nth(1) {
                break rest.split('/').next().expect("a port").to_owned();
            }
        };
        // Keep draining stderr so Chromium never blocks on it.
        std::thread::spawn(move || for _ in lines {});
        let list = http_get(&format!("127.0.0.1:{port}"), "/json/list");
        let targets: Value = serde_json::from_str(&list).expect("the target list is JSON");
        let url = targets
            .as_array()
            .and_then(|t| t.iter().find(|t| t["type"] == "page"))
            .and_then(|t| t["webSocketDebuggerUrl"].as_str())
            .expect("a page target")
            .to_owned();
        let address = url
            .trim_start_matches("ws://")
            .split('/')
            .next()
            .expect("a host")
            .to_owned();
        let stream = TcpStream::connect(address).expect("the DevTools port");
        let (socket, _) = tungstenite::client(url.as_str(), stream).expect("the DevTools socket");
        let mut browser = Browser {
            child,
            profile,
            socket,
            next: 0,
        };
        // The page gets exactly this viewport (a headless window keeps
        // some of its height for the browser's own frame).
        browser.call(
            "Emulation.setDeviceMetricsOverride",
            json!({ "width": width, "height": height, "deviceScaleFactor": 1, "mobile": false }),
        );
        browser.call("Page.enable", json!({}));
        browser.call("Runtime.enable", json!({}));
        browser
    }

    /// Sends `method` and waits for its answer (events are skipped).
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        let message = json!({ "id": id, "method": method, "params": params }).to_string();
        self.socket
            .send(tungstenite::Message::text(message))
            .expect("sent");
        loop {
            let message = self.socket.read().expect("an answer");
            let tungstenite::Message::Text(text) = message else {
                continue;
            };
            let value: Value = serde_json::from_str(text.as_str()).expect("JSON");
            if value["id"].as_u64() == Some(id) {
                assert!(
                    value.get("error").is_none(),
                    "{method} failed: {}",
                    value["error"]
                );
                return value["result"].clone();
            }
        }
    }

    /// Opens `url` and waits until `ready` (JavaScript) is true.
    pub fn open(&mut self, url: &str, ready: &str) {
        self.call("Page.navigate", json!({ "url": url }));
        self.wait(ready);
    }

    /// The value of JavaScript `expression` (promises awaited).
    pub fn eval(&mut self, expression: &str) -> Value {
        let result = self.call(
            "Runtime.evaluate",
            json!({ "expression": expression, "returnByValue": true, "awaitPromise": true }),
        );
        assert!(
            result.get("exceptionDetails").is_none(),
            "{expression} threw: {}",
            result["exceptionDetails"]
        );
        result["result"]["value"].clone()
    }

    /// The text of JavaScript `expression`.
    pub fn text(&mut self, expression: &str) -> String {
        match self.eval(expression) {
            Value::String(s) => s,
            other => other.to_string(),
        }
    }

    /// Waits until JavaScript `condition` is true (a condition that throws
    /// — the page still loading, `document.body` not there yet — is not).
    pub fn wait(&mut self, condition: &str) {
        let start = Instant::now();
        let guarded = format!(
            "(function () {{ try {{ return !!({condition}); }} catch (e) {{ return false; }} }})()"
        );
        while self.eval(&guarded) != Value::Bool(true) {
            assert!(
                start.elapsed() < PATIENCE,
                "not true after {PATIENCE:?}: {condition}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Clicks the element `selector` names as a person would: scrolled
    /// into view, a mouse press and release at its centre.
    pub fn click(&mut self, selector: &str) {
        let quoted = serde_json::to_string(selector).expect("a string");
        let point = self.eval(&format!(
            "(function () {{ var e = document.querySelector({quoted}); if (!e) return null; \
             e.scrollIntoView({{block: 'center'}}); var r = e.getBoundingClientRect(); \
             return [r.left + r.width / 2, r.top + r.height / 2]; }})()"
        ));
        let (x, y) = match point.as_array().map(Vec::as_slice) {
            Some([x, y]) => (x.as_f64().expect("x"), y.as_f64().expect("y")),
            _ => panic!("nothing to click: {selector}"),
        };
        for kind in ["mousePressed", "mouseReleased"] {
            self.call(
                "Input.dispatchMouseEvent",
                json!({ "type": kind, "x": x, "y": y, "button": "left", "clickCount": 1 }),
            );
        }
    }

    /// A PNG of what the window shows, saved as `name`.png under
    /// `target/browser-shots` (for a person to look at), and its size.
    pub fn screenshot(&mut self, name: &str) -> (u32, u32) {
        let result = self.call("Page.captureScreenshot", json!({ "format": "png" }));
        let data = result["data"].as_str().expect("base64 data");
        let png = data_encoding::BASE64
            .decode(data.as_bytes())
            .expect("base64");
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join("target")
            .join("browser-shots");
        std::fs::create_dir_all(&dir).expect("a directory for screenshots");
        std::fs::write(dir.join(format!("{name}.png")), &png).expect("written");
        let decoder = png::Decoder::new(std::io::Cursor::new(png));
        let reader = decoder.read_info().expect("a PNG");
        (reader.info().width, reader.info().height)
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

/// The body of `GET path` from `host`, once it answers.
fn http_get(host: &str, path: &str) -> String {
    let start = Instant::now();
    loop {
        if let Some((_, body)) = crate::http::request(host, "GET", path) {
            return body;
        }
        assert!(start.elapsed() < PATIENCE, "no answer from {host}{path}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

//! `cargo xtask debug` over HTTP, without a browser: it serves on
//! 127.0.0.1 and prints its URL, each tab gets its own tree, a path
//! taken in the page is a replay id that `explore --replay` runs, and bad
//! input is answered with an error naming it — never a crash.

mod debugger;
mod http;

use debugger::Server;
use serde_json::{Value, json};

fn json(body: &str) -> Value {
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"))
}

#[test]
fn each_tab_gets_its_own_tree_and_bad_input_is_an_error_not_a_crash() {
    let mut server = Server::start(&["--protocol", "isr"]);
    assert!(
        server.url.starts_with("http://127.0.0.1:"),
        "{}",
        server.url
    );
    let (status, page) = server.request("GET", "/");
    assert_eq!(status, 200);
    assert!(page.contains("MiniDist debugger"));
    assert!(
        !page.contains("http://") && !page.contains("https://"),
        "nothing loads from elsewhere"
    );
    let (_, one) = server.request("POST", "/api/new");
    let (_, two) = server.request("POST", "/api/new");
    let (one, two) = (json(&one)["session"].clone(), json(&two)["session"].clone());
    assert_ne!(one, two, "a second tab works on its own tree");
    let (status, body) = server.request("POST", &format!("/api/act?session={one}&state=0&code=w0"));
    assert_eq!(status, 200, "{body}");
    let (_, view) = server.request("GET", &format!("/api/view?session={two}&state=0"));
    assert_eq!(
        json(&view)["tree"].as_array().map(Vec::len),
        Some(1),
        "the other tree is untouched"
    );
    for (method, path, says) in [
        (
            "POST",
            format!("/api/act?session={one}&state=0&code=zz"),
            "not an action",
        ),
        (
            "POST",
            format!("/api/act?session={one}&state=0&code=s0"),
            "not enabled",
        ),
        (
            "POST",
            format!("/api/act?session={one}&state=99&code=t"),
            "no state 99",
        ),
        (
            "GET",
            "/api/view?session=42&state=0".to_owned(),
            "no session 42",
        ),
        (
            "GET",
            "/api/view?session=x&state=0".to_owned(),
            "not a number",
        ),
        (
            "POST",
            format!("/api/act?session={one}&state=0"),
            "no `code`",
        ),
    ] {
        let (status, body) = server.request(method, &path);
        assert_eq!(status, 400, "{path}: {body}");
        let error = json(&body)["error"].as_str().unwrap_or_default().to_owned();
        assert!(error.contains(says), "{path}: {error}");
    }
    assert_eq!(server.request("GET", "/nowhere").0, 404);
    assert!(server.alive(), "the server outlived every bad request");
}

#[test]
fn a_path_taken_in_the_debugger_replays_to_the_same_states_in_the_terminal() {
    let server = Server::start(&["--protocol", "raft"]);
    let (_, new) = server.request("POST", "/api/new");
    let session = json(&new)["session"].clone();
    let mut state = 0;
    let mut last = Value::Null;
    for code in ["w0", "d0", "d0", "e1", "d0"] {
        let (status, body) = server.request(
            "POST",
            &format!("/api/act?session={session}&state={state}&code={code}"),
        );
        assert_eq!(status, 200, "{code}: {body}");
        state = json(&body)["state"].as_u64().expect("a state") as usize;
        let (_, view) =
            server.request("GET", &format!("/api/view?session={session}&state={state}"));
        last = json(&view);
    }
    let replay = last["replay"].as_str().expect("a replay id").to_owned();
    assert!(replay.ends_with("-m-w0.d0.d0.e1.d0"), "{replay}");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_xtask"))
        .env("MINIDIST_REEXEC", "0")
        .args(["explore", "--replay", &replay])
        .output()
        .expect("xtask runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The terminal's step log is the debugger's, line for line.
    for line in last["log"].as_array().expect("a log") {
        let line = line.as_str().expect("text");
        assert!(text.contains(line), "{line:?} not in\n{text}");
    }
}

#[test]
fn a_checker_counterexample_opens_at_the_state_that_broke_the_property() {
    let id = "isr.all_isr.linearizable.unclean_election-m-w0.d0.t.t.p0.c1";
    let server = Server::start(&["--replay", id]);
    let (_, new) = server.request("POST", "/api/new");
    let new = json(&new);
    let (_, view) = server.request(
        "GET",
        &format!(
            "/api/view?session={}&state={}",
            new["session"], new["state"]
        ),
    );
    let view = json(&view);
    let broken = &view["first_broken"];
    assert_eq!(
        broken["state"], view["state"],
        "opened at the violation: {broken}"
    );
    assert_eq!(broken["property"], "durable", "{broken}");
    assert_eq!(view["replay"], id);
}

#[test]
fn a_sweep_replay_id_opens_as_a_recorded_run_to_branch_off() {
    let id = "isr.leader.local.default-s1-0.1";
    let server = Server::start(&["--replay", id]);
    let (_, new) = server.request("POST", "/api/new");
    let new = json(&new);
    let (session, state) = (new["session"].clone(), new["state"].clone());
    let (status, body) = server.request("GET", &format!("/api/view?session={session}&state=0"));
    assert_eq!(status, 200, "{body}");
    let root = json(&body);
    let tree = root["tree"].as_array().expect("a tree");
    assert_eq!(
        tree.len(),
        3,
        "the start and the two recorded steps: {tree:?}"
    );
    assert!(
        tree[1]["step"]
            .as_str()
            .is_some_and(|s| s.starts_with("recorded step 0: ")),
        "{tree:?}"
    );
    assert_eq!(
        root["actions"][0]["code"], "r",
        "the recorded run's next step"
    );
    assert_eq!(root["replay"], "isr.leader.local.default-s1-none");
    // The last recorded state has the whole id; a branch off it none.
    let (_, body) = server.request("GET", &format!("/api/view?session={session}&state=2"));
    assert_eq!(json(&body)["replay"], id);
    let (status, body) = server.request(
        "POST",
        &format!("/api/act?session={session}&state=1&code=t"),
    );
    assert_eq!(status, 200, "{body}");
    let branch = json(&body)["state"].clone();
    let (_, body) = server.request(
        "GET",
        &format!("/api/view?session={session}&state={branch}"),
    );
    assert_eq!(json(&body)["replay"], "");
    // It opened at the first broken state, or at the end.
    assert!(state == 1 || state == 2, "{state}");
    let (status, body) = server.request("GET", &format!("/api/scenario?session={session}&state=2"));
    assert_eq!(status, 400, "a recorded run is not a scenario file");
    assert!(body.contains("delivered by itself"), "{body}");
}

/// Takes `codes` in a fresh tab; answers the last state's view.
fn walk(server: &Server, codes: &[&str]) -> (Value, Value) {
    let (_, new) = server.request("POST", "/api/new");
    let session = json(&new)["session"].clone();
    let mut state = 0u64;
    for code in codes {
        let (status, body) = server.request(
            "POST",
            &format!("/api/act?session={session}&state={state}&code={code}"),
        );
        assert_eq!(status, 200, "{code}: {body}");
        state = json(&body)["state"].as_u64().expect("a state");
    }
    let (_, view) = server.request("GET", &format!("/api/view?session={session}&state={state}"));
    (json(&view), json!({ "session": session, "state": state }))
}

/// The scenario file the debugger exports for state `at`.
fn export(server: &Server, at: &Value) -> String {
    let (status, text) = server.request(
        "GET",
        &format!(
            "/api/scenario?session={}&state={}",
            at["session"], at["state"]
        ),
    );
    assert_eq!(status, 200, "{text}");
    text
}

/// `text` run by `cargo xtask run FILE --rewrite`: the file as rewritten,
/// and the lines of its last block (the closing `state`).
fn replayed(text: &str, name: &str) -> (String, Vec<String>) {
    let file = std::env::temp_dir().join(format!("minidist-{name}-{}.txt", std::process::id()));
    std::fs::write(&file, text).expect("written");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_xtask"))
        .env("MINIDIST_REEXEC", "0")
        .args(["run", &file.display().to_string(), "--rewrite"])
        .output()
        .expect("xtask runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let replayed = std::fs::read_to_string(&file).expect("rewritten");
    let last = replayed
        .rsplit("state\n----\n")
        .next()
        .expect("a state block")
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect();
    (replayed, last)
}

/// The debugger's lanes as the scenario's `state` prints them.
fn state_lines(view: &Value, protocol: &str) -> Vec<String> {
    view["lanes"]
        .as_array()
        .expect("lanes")
        .iter()
        .map(|l| {
            let role = l["role"].as_str().unwrap_or_default();
            let role = if l["alive"] == true {
                role.to_owned()
            } else {
                format!("down ({role})")
            };
            let fields: Vec<String> = l["fields"]
                .as_array()
                .expect("fields")
                .iter()
                .map(|f| {
                    format!(
                        "{} {}",
                        f[0].as_str().unwrap_or(""),
                        f[1].as_str().unwrap_or("")
                    )
                })
                .collect();
            format!(
                "{protocol}: {}: {role} {}",
                l["node"].as_str().unwrap_or(""),
                fields.join(" ")
            )
        })
        .collect()
}

#[test]
fn an_exported_scenario_replays_through_the_same_states() {
    for (protocol, codes) in [
        (
            "isr",
            &["l1", "w0", "k20", "d0", "t", "t", "o20", "q1", "d0", "c0"][..],
        ),
        (
            "raft",
            &["w0", "d0", "e0", "d2", "d3", "i1", "r9", "d0"][..],
        ),
    ] {
        let server = Server::start(&["--protocol", protocol]);
        let (view, at) = walk(&server, codes);
        let text = export(&server, &at);
        assert!(text.contains("steer until=30"), "{text}");
        let (replayed, last) = replayed(&text, &format!("exported-{protocol}"));
        assert_eq!(
            last,
            state_lines(&view, protocol),
            "{protocol}:\n{replayed}"
        );
        for broken in [
            "no held message",
            "not a steered run",
            "unknown directive",
            "fire only as ticks pass",
        ] {
            assert!(
                !replayed.contains(broken),
                "every step ran as it did: {replayed}"
            );
        }
    }
}

#[test]
fn a_scenario_part_opens_at_its_end_and_its_export_replays_the_part_and_the_path() {
    let server = Server::start(&[
        "--scenario",
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../docs/exercises/isr-min-insync.txt"
        ),
        "--part",
        "1",
    ]);
    let (root, _) = walk(&server, &[]);
    // The part left both followers slow and out of the ISR, at tick 2.
    assert_eq!(root["tick"], 2, "{root}");
    assert!(
        root["lanes"][0]["fields"].to_string().contains("{node-1}"),
        "{}",
        root["lanes"]
    );
    assert_eq!(root["replay"], "", "a scenario's path has no replay id");
    let (view, at) = walk(&server, &["q1", "t", "t"]);
    let text = export(&server, &at);
    assert!(
        text.contains("config protocols=isr lag_timeout=1 min_insync=2"),
        "{text}"
    );
    assert!(text.contains("\nsteer\n"), "{text}");
    let (replayed, last) = replayed(&text, "part");
    assert_eq!(last, state_lines(&view, "isr"), "{replayed}");
}

#[test]
fn raft_timers_are_held_in_the_debugger_and_fire_when_chosen() {
    let server = Server::start(&["--protocol", "raft"]);
    let (first, _) = walk(&server, &[]);
    assert_eq!(first["timers_held"], true, "{first}");
    let held = |v: &Value| v["held"].as_array().map_or(0, Vec::len);
    // Twenty ticks, far past every election timeout and heartbeat: no
    // timer fires by itself, so nothing new is sent.
    let (waited, _) = walk(&server, &["t"; 20]);
    assert_eq!(held(&waited), held(&first), "{waited}");
    // A fired election timer sends its vote requests.
    let (fired, _) = walk(&server, &["e0"]);
    assert!(held(&fired) > held(&first), "{fired}");
    let isr = Server::start(&["--protocol", "isr"]);
    let (view, _) = walk(&isr, &[]);
    assert_eq!(
        view["timers_held"], false,
        "ISR's timers fire as ticks pass"
    );
}

#[test]
fn a_knob_value_builds_the_debugged_group_and_names_its_paths() {
    let server = Server::start(&["--protocol", "raft", "--knob", "max_append_entries=1"]);
    let (view, _) = walk(&server, &["w0"]);
    let replay = view["replay"].as_str().expect("a replay id");
    assert!(replay.ends_with("-m:max_append_entries=1-w0"), "{replay}");
}

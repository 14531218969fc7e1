//! `cargo xtask debug`: a debugger for students, served on 127.0.0.1. A
//! run of one configuration, steered: every enabled action (deliver, drop
//! or duplicate a held message, fire a timer, let a tick pass, crash,
//! restart, isolate, heal, slow, fail over, a client write or read) is a
//! button; each choice is a state in a tree, so going back and choosing
//! otherwise makes a branch that stays. The session is `explore`'s
//! [`debugger`](explore::debugger) — the model checker's steered run and
//! its steps, so the two never disagree about what can happen next. Each
//! browser tab gets its own tree.

use std::process::ExitCode;

use explore::debugger::Session;
use explore::{Configuration, ReplayId, Step};

use crate::args::{AckArg, ProtocolArg, ReadArg};
use crate::debug_json;
use crate::output::{self, Failure};

/// `cargo xtask debug`.
#[derive(clap::Args)]
pub struct Args {
    /// The protocol [default: isr, the chapter's; else the first the command line serves].
    #[arg(long, value_parser = crate::args::protocol_parser())]
    protocol: Option<ProtocolArg>,
    /// The ack level [default: the strongest row's: above the leader's own].
    #[arg(long, value_enum)]
    ack: Option<AckArg>,
    /// The read level [default: linearizable where the protocol has it].
    #[arg(long, value_enum)]
    read: Option<ReadArg>,
    /// The setting [default: default; for a protocol without a default
    /// row, such as a lab's, its last row's (a lab: its last stage)].
    #[arg(long)]
    setting: Option<String>,
    /// Open a model checker's path (`cargo xtask check` prints them, e.g.
    /// `isr.all_isr.linearizable.default-m-w0.d0.c0`) at its first broken
    /// property, or at its end.
    #[arg(long, value_name = "ID", conflicts_with_all = ["protocol", "ack", "read", "setting", "scenario"])]
    replay: Option<String>,
    /// Start from the end of a scenario file's part (`--part N`, the
    /// first by default), on `--protocol` (the part's first protocol by
    /// default): its group as the part leaves it, the network held from
    /// there. A path from it is exported as the part plus the steps.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["ack", "read", "setting"])]
    scenario: Option<std::path::PathBuf>,
    /// Build the row's group with this knob value, NAME=VALUE (a setting
    /// the sweep varies, e.g. max_append_entries=1 for Raft); repeat for
    /// several. The paths' replay ids name it.
    #[arg(long = "knob", value_name = "NAME=VALUE", value_parser = explore::parse_knob, conflicts_with_all = ["replay", "scenario"])]
    knobs: Vec<(String, String)>,
    /// With --scenario: which part (1-based; a part starts at a `config`).
    #[arg(long, value_name = "N", requires = "scenario", default_value_t = 1)]
    part: usize,
    /// The port on 127.0.0.1 (0: any free port; the URL is printed).
    #[arg(long, default_value_t = 7878)]
    port: u16,
}

/// `debug`.
pub fn command(args: Args) -> Result<ExitCode, Failure> {
    let replay = match &args.replay {
        None => None,
        Some(text) => Some(
            text.parse::<ReplayId>()
                .map_err(|e| Failure::usage("debug", clap::error::ErrorKind::InvalidValue, e))?,
        ),
    };
    // A planted bug's path needs the build with the bug compiled in.
    if replay
        .as_ref()
        .is_some_and(|id| id.config.split('.').count() == 5)
        && let Some(code) = crate::optimized::reexec("debug", &["planted"])?
    {
        return Ok(code);
    }
    let mut prefix = None;
    let (config, start) = match (replay, &args.scenario) {
        (Some(id), _) => config_of_replay(id)?,
        (None, Some(file)) => {
            let (config, part) = config_of_part(file, args.part, args.protocol)?;
            prefix = Some(part);
            (config, Start::Built)
        }
        (None, None) => (config_of_filters(&args)?, Start::Path(Vec::new())),
    };
    let server = tiny_http::Server::http(("127.0.0.1", args.port))
        .map_err(|e| Failure::Failed(format!("cannot serve on 127.0.0.1:{}: {e}", args.port)))?;
    let addr = server
        .server_addr()
        .to_ip()
        .ok_or_else(|| Failure::Failed("the server has no IP address".into()))?;
    // The first session proves the configuration and the path work
    // before the URL is given out.
    let first =
        open(&config, &start).map_err(|e| Failure::Failed(format!("{}: {e}", config.key())))?;
    output::print(&format!(
        "debugger: http://{addr}/  ({}; Ctrl-C ends it)\n",
        config.key()
    ))?;
    serve(&server, &config, &start, first, prefix.as_deref());
    Ok(ExitCode::SUCCESS)
}

/// The protocol the debugger opens by default: isr (the chapter's) when
/// it is served, else the first protocol served.
fn default_protocol() -> &'static str {
    let registry = labs::registry();
    if registry.named("isr").is_some() {
        "isr"
    } else {
        registry.protocols().first().map_or("isr", |p| p.name())
    }
}

/// The configuration the filters name: of the guarantees table's rows that
/// match them, the strongest (a linearizable read, an ack level above the
/// leader's own), else the first.
fn config_of_filters(args: &Args) -> Result<Configuration, Failure> {
    let all = labs::explore_configs();
    let protocol = args
        .protocol
        .map_or_else(default_protocol, ProtocolArg::name);
    let setting = args.setting.clone().unwrap_or_else(|| {
        let mut mine = all.iter().filter(|c| c.protocol == protocol);
        if mine.clone().any(|c| c.setting == "default") {
            "default".to_owned()
        } else {
            mine.next_back().map_or("default", |c| c.setting).to_owned()
        }
    });
    let rows: Vec<Configuration> = all
        .into_iter()
        .filter(|c| c.protocol == protocol && c.setting == setting)
        .filter(|c| args.ack.is_none_or(|a| a.name() == c.ack.snake()))
        .filter(|c| {
            args.read
                .is_none_or(|r| r.name() == explore::read_snake(c.read))
        })
        .collect();
    // The strongest row by default: a linearizable read, and an ack level
    // above the leader's own where there is one.
    let strongest = rows.iter().position(|c| {
        c.read == replication::ReadLevel::Linearizable && c.ack != replication::AckLevel::Leader
    });
    let pick = strongest.or_else(|| {
        rows.iter()
            .position(|c| c.read == replication::ReadLevel::Linearizable)
    });
    let row = rows.into_iter().nth(pick.unwrap_or(0)).ok_or_else(|| {
        Failure::usage(
            "debug",
            clap::error::ErrorKind::InvalidValue,
            format!(
                "no configuration of {protocol} with setting `{setting}` and these levels \
                     (see `{} explore --json` for the rows)",
                explore::command()
            ),
        )
    })?;
    row.with_knob_values(&args.knobs)
        .map_err(|e| Failure::usage("debug", clap::error::ErrorKind::InvalidValue, e.to_string()))
}

/// A configuration whose group is part `n` of scenario `file`, run to its
/// end on `protocol` (the part's first protocol by default), at the
/// protocol's strongest levels; and the part's directives, for exports.
fn config_of_part(
    file: &std::path::Path,
    n: usize,
    protocol: Option<ProtocolArg>,
) -> Result<(Configuration, String), Failure> {
    let usage = |m: String| Failure::usage("debug", clap::error::ErrorKind::InvalidValue, m);
    let text = std::fs::read_to_string(file)
        .map_err(|e| Failure::Failed(format!("cannot read {}: {e}", file.display())))?;
    let registry = labs::registry();
    let scenario = scenario::parse(&file.display().to_string(), &text, &registry)
        .map_err(|e| Failure::Failed(e.to_string()))?;
    let cases = scenario::part_cases(&scenario, n)
        .ok_or_else(|| usage(format!("{} has no part {n}", file.display())))?
        .to_vec();
    let name: String = match protocol {
        Some(p) => p.name().to_owned(),
        None => match cases.first().map(|c| &c.directive) {
            Some(scenario::Directive::Config(c)) => c
                .protocols
                .as_ref()
                .and_then(|p| p.first())
                .map_or_else(|| default_protocol().to_owned(), Clone::clone),
            _ => default_protocol().to_owned(),
        },
    };
    let name = name.as_str();
    let protocol = registry
        .named(name)
        .ok_or_else(|| usage(format!("no protocol {name}")))?;
    // The levels of the protocol's default rows (any of its rows when it
    // has no default one, as a lab has stages instead).
    let mine: Vec<Configuration> = labs::explore_configs()
        .into_iter()
        .filter(|c| c.protocol == protocol.name())
        .collect();
    let has_default = mine.iter().any(|c| c.setting == "default");
    let rows: Vec<Configuration> = mine
        .into_iter()
        .filter(|c| !has_default || c.setting == "default")
        .collect();
    let strongest = rows
        .iter()
        .position(|c| {
            c.read == replication::ReadLevel::Linearizable && c.ack != replication::AckLevel::Leader
        })
        .unwrap_or(0);
    let strongest = rows
        .into_iter()
        .nth(strongest)
        .ok_or_else(|| usage(format!("{name} has no default row")))?;
    // The part runs to its end on every rebuild (a millisecond or so).
    let prefix: String = cases
        .iter()
        .map(|c| format!("{}\n----\n\n", c.text))
        .collect();
    let probe = cases.clone();
    scenario::part_group(&probe, protocol, &registry)
        .map_err(|why| Failure::Failed(format!("{} part {n} on {name}: {why}", file.display())))?;
    let config = Configuration::new(
        protocol.name(),
        strongest.ack,
        strongest.read,
        "scenario",
        move |_| {
            scenario::part_group(&cases, protocol, &registry)
                .map(|g| g as Box<dyn replication::ReplicationGroup>)
                .map_err(|why| replication::GroupError::config("scenario", why))
        },
    )
    .with_transport(strongest.transport);
    Ok((config, prefix))
}

/// Where a session starts.
enum Start {
    /// The model checker's root, then this path.
    Path(Vec<Step>),
    /// The group as the configuration builds it (a scenario's part).
    Built,
    /// A recorded run of the sweep.
    Recorded(ReplayId),
}

/// The configuration a replay id names, and where the session starts: a
/// checker's path, or a sweep's recorded run.
fn config_of_replay(id: ReplayId) -> Result<(Configuration, Start), Failure> {
    let usage = |m: String| Failure::usage("debug", clap::error::ErrorKind::InvalidValue, m);
    let config = labs::explore_configs()
        .into_iter()
        .chain(labs::planted_configs().into_iter().map(|(_, c)| c))
        .find(|c| c.key() == id.config)
        .ok_or_else(|| {
            usage(format!(
                "no configuration `{}` (see `{} explore --json`)",
                id.config,
                explore::command()
            ))
        })?
        .with_knob_values(&id.knobs)
        .map_err(|e| usage(e.to_string()))?;
    Ok(match id.path.clone() {
        Some(path) => (config, Start::Path(path)),
        None => (config, Start::Recorded(id)),
    })
}

/// Answers requests until the process is ended. Every session is a
/// browser tab's; a bad request is answered with its error, never a crash.
fn serve(
    server: &tiny_http::Server,
    config: &Configuration,
    start: &Start,
    first: Session<'_>,
    prefix: Option<&str>,
) {
    let mut sessions: Vec<Session<'_>> = vec![first];
    let mut unclaimed = true;
    for request in server.incoming_requests() {
        let url = request.url().to_string();
        let (route, query) = url.split_once('?').unwrap_or((url.as_str(), ""));
        let answer = match (request.method(), route) {
            (tiny_http::Method::Get, "/") => Answer::Html(PAGE),
            (tiny_http::Method::Post, "/api/new") => {
                let fresh = if unclaimed {
                    unclaimed = false;
                    Ok(sessions.len() - 1)
                } else {
                    open(config, start).map(|s| {
                        sessions.push(s);
                        sessions.len() - 1
                    })
                };
                match fresh {
                    Ok(id) => {
                        let at = start_state(&sessions[id], start);
                        Answer::Json(serde_json::json!({ "session": id, "state": at }))
                    }
                    Err(e) => Answer::Error(e),
                }
            }
            (tiny_http::Method::Get, "/api/view") => view(&sessions, query),
            (tiny_http::Method::Post, "/api/act") => act(&mut sessions, query),
            (tiny_http::Method::Get, "/api/scenario") => export(&sessions, query, prefix),
            _ => Answer::NotFound,
        };
        let response = match answer {
            Answer::Html(text) => tiny_http::Response::from_string(text)
                .with_header(header("Content-Type", "text/html; charset=utf-8")),
            Answer::Json(json) => tiny_http::Response::from_string(json.to_string())
                .with_header(header("Content-Type", "application/json")),
            Answer::Error(why) => {
                tiny_http::Response::from_string(serde_json::json!({ "error": why }).to_string())
                    .with_status_code(400)
                    .with_header(header("Content-Type", "application/json"))
            }
            Answer::Text(text) => tiny_http::Response::from_string(text)
                .with_header(header("Content-Type", "text/plain; charset=utf-8")),
            Answer::NotFound => tiny_http::Response::from_string("not found").with_status_code(404),
        };
        let _ = request.respond(response);
    }
}

/// The page, self-contained (no file or script from elsewhere).
const PAGE: &str = include_str!("debug_page.html");

enum Answer {
    Html(&'static str),
    Json(serde_json::Value),
    Text(String),
    Error(String),
    NotFound,
}

fn header(name: &str, value: &str) -> tiny_http::Header {
    // Both are ASCII constants: the conversion cannot fail.
    tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes())
        .unwrap_or_else(|()| unreachable!("an ASCII header"))
}

/// A new session from `start`: the checker's root with the start path
/// followed, the group as built (a scenario's part), or a recorded run.
fn open<'a>(config: &'a Configuration, start: &Start) -> Result<Session<'a>, String> {
    match start {
        Start::Path(path) => {
            let mut s = Session::new(config).map_err(|e| e.to_string())?;
            s.follow(0, path)
                .map_err(|e| format!("the path does not replay: {e}"))?;
            Ok(s)
        }
        Start::Built => Session::from_built(config).map_err(|e| e.to_string()),
        Start::Recorded(id) => Session::recorded(config, id).map_err(|e| e.to_string()),
    }
}

/// Where a session opens: the first state of the start path (or of the
/// recorded run) that broke a property, or its end.
fn start_state(session: &Session<'_>, start: &Start) -> usize {
    let states = session.states();
    let mut at = 0;
    loop {
        let next = match start {
            Start::Path(path) => path.get(path_len(session, at)).and_then(|step| {
                states[at]
                    .children
                    .iter()
                    .copied()
                    .find(|&c| states[c].step.as_ref() == Some(step) && !states[c].recorded)
            }),
            Start::Recorded(_) => states[at]
                .children
                .iter()
                .copied()
                .find(|&c| states[c].recorded),
            Start::Built => None,
        };
        let Some(child) = next else {
            return at;
        };
        at = child;
        if states[at].broken().is_some() {
            return at;
        }
    }
}

/// How many steps lead from the root to state `at`.
fn path_len(session: &Session<'_>, at: usize) -> usize {
    let states = session.states();
    let (mut n, mut cur) = (0, at);
    while let Some(parent) = states[cur].parent {
        n += 1;
        cur = parent;
    }
    n
}

/// `key=value` pairs of a query string.
fn param(query: &str, key: &str) -> Option<String> {
    query.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=')?;
        (k == key).then(|| v.to_string())
    })
}

fn numbers(query: &str) -> Result<(usize, usize), String> {
    let number = |key: &str| {
        param(query, key)
            .ok_or_else(|| format!("the request names no `{key}`"))?
            .parse::<usize>()
            .map_err(|_| format!("`{key}` is not a number"))
    };
    Ok((number("session")?, number("state")?))
}

fn view(sessions: &[Session<'_>], query: &str) -> Answer {
    let (s, k) = match numbers(query) {
        Ok(n) => n,
        Err(e) => return Answer::Error(e),
    };
    let Some(session) = sessions.get(s) else {
        return Answer::Error(format!("no session {s} (reload the page for a new one)"));
    };
    match session.view(k) {
        Ok(v) => Answer::Json(debug_json::view(session, &v)),
        Err(e) => Answer::Error(e.to_string()),
    }
}

fn act(sessions: &mut [Session<'_>], query: &str) -> Answer {
    let (s, k) = match numbers(query) {
        Ok(n) => n,
        Err(e) => return Answer::Error(e),
    };
    let Some(code) = param(query, "code") else {
        return Answer::Error("the request names no `code`".into());
    };
    let Some(session) = sessions.get_mut(s) else {
        return Answer::Error(format!("no session {s} (reload the page for a new one)"));
    };
    match session.act(k, &code) {
        Ok(next) => Answer::Json(serde_json::json!({ "state": next })),
        Err(e) => Answer::Error(e.to_string()),
    }
}

fn export(sessions: &[Session<'_>], query: &str, prefix: Option<&str>) -> Answer {
    let (s, k) = match numbers(query) {
        Ok(n) => n,
        Err(e) => return Answer::Error(e),
    };
    let Some(session) = sessions.get(s) else {
        return Answer::Error(format!("no session {s} (reload the page for a new one)"));
    };
    match crate::debug_export::scenario(session, k, prefix) {
        Ok(text) => Answer::Text(text),
        Err(e) => Answer::Error(e),
    }
}

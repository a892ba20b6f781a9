//! Slash commands (SPEC §9): each built-in's parsing, help line, completion and what it does,
//! in this one file; the person's own commands (`custom.rs`) are dispatched from here.
//!
//! Invariant: a line that starts with `/` is always a command, never sent to the model as typed,
//! so a typo like `/hepl` cannot leak into the conversation; a custom command sends its own
//! prompt, and a built-in name always means the built-in. Parsing and completion are pure
//! functions of the text (and the provider and command names); `run` is the only part that
//! prints or changes the chat. Everything it says is word-wrapped to the screen.

use super::ReplEnd;
use super::banner::say_bypass;
use super::chat::Chat;
use super::cost::{Cost, render_cost};
use super::render::{DIM, RED, human_count, wrap};
use super::setup::Setup;
use super::turn::{TurnContext, TurnEnd, run_compact};
use super::{changes, context_view, custom, init, rewind, say, say_wrapped, sessions, status};
use crate::config::price::price_for;
use crate::config::skills::{Skill, SkillOrigin};
use crate::config::{ProviderConfig, WindowSource};
use crate::mode::Mode;
use crate::text::neutralize;

/// One parsed slash command.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Command {
    Help,
    /// `/mode` shows the mode; `/mode NAME` sets it.
    Mode(Option<Mode>),
    /// `/model` lists providers; `/model PROVIDER[/MODEL]` switches.
    Model(Option<ModelChoice>),
    Compact,
    /// `/resume` lists this project's sessions; `/resume N` or `/resume ID` resumes one.
    Resume(Option<String>),
    Clear,
    Tools,
    /// `/mcp`: the servers and their state.
    Mcp,
    /// `/mcp reconnect NAME`: disconnect (if connected) and connect the server again.
    McpReconnect(String),
    Cost,
    /// `/status`: where the session stands.
    Status,
    /// `/rewind` picks a point of the session's timeline; `/rewind N` goes to before turn N.
    Rewind(Option<String>),
    /// `/undo`: the last turn's changes (or the last rewind) put back.
    Undo,
    /// `/diff`: what the session changed so far.
    Diff,
    /// `/init`: a turn asking the model to write (or improve) the project's AGENTS.md.
    Init,
    /// `/context`: what fills the context window.
    Context,
    /// `/jobs`: the background jobs the model started.
    Jobs,
    /// `/skills`: the skills the model can load.
    Skills,
    Exit,
}

/// The target of `/model`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct ModelChoice {
    provider: String,
    /// A model id replacing the provider's configured one.
    model: Option<String>,
}

/// Every built-in command: its names (aliases after the first), its arguments and its one-line
/// help, in `/help` order. `parse_command` knows each name (a unit test holds them together).
const COMMANDS: &[(&[&str], &str, &str)] = &[
    (&["/help", "/?"], "", "this list"),
    (&["/mode"], "[NAME]", "show or set the permission mode (default, acceptEdits, plan, bypass); Shift-Tab cycles it"),
    (&["/model"], "[PROVIDER[/MODEL]]", "list the configured providers, or switch provider and model"),
    (&["/init"], "", "ask the model to write an AGENTS.md for this project (or improve the one there is)"),
    (&["/context"], "", "what fills the context window: system prompt, instruction files, tools, messages"),
    (&["/compact"], "", "summarise the conversation to free context"),
    (&["/resume"], "[N|ID|all]", "pick one of this project's sessions, or continue one by number or id"),
    (&["/clear", "/new"], "", "start a new conversation"),
    (&["/tools"], "", "list the tools the model can use"),
    (&["/skills"], "", "list the skills the model can load (name, description, where from)"),
    (
        &["/mcp"],
        "[reconnect NAME]",
        "show the MCP servers (starting, connected, failed) and their tools, or reconnect one",
    ),
    (&["/cost"], "", "tokens used this session, and their cost when the model's price is known"),
    (&["/status"], "", "provider, model, context window, vision, project, mode, sandbox, MCP servers, tokens, session"),
    (&["/permissions"], "[add|remove]", "list the permission rules and their files; add allow|ask|deny RULE, remove N"),
    (&["/diff"], "", "what this session changed in the project's files so far (by any tool or command)"),
    (&["/jobs"], "", "the background jobs the model started: state, age, output (they end with the session)"),
    (&["/rewind"], "[N]", "put the code, the conversation or both back as they were before a turn"),
    (&["/undo"], "", "put back the files the last turn changed (or undo the last rewind)"),
    (&["/exit", "/quit"], "", "leave mewcode (Ctrl-D does too)"),
];

/// True when `name` (with its slash) is a built-in command or alias.
pub(super) fn is_builtin(name: &str) -> bool {
    COMMANDS.iter().any(|(names, _, _)| names.contains(&name))
}

/// Runs a slash command line; `Some` when the REPL ends. A line that does not parse is said in
/// red and changes nothing.
pub(super) fn run(
    line: &str,
    chat: &mut Chat,
    setup: &Setup,
    providers: &[ProviderConfig],
    context: &TurnContext,
) -> Option<ReplEnd> {
    if let Some(arguments) = super::permissions::arguments(line) {
        super::permissions::run(arguments, chat, setup);
        return None;
    }
    let name = line.split_whitespace().next().unwrap_or("/");
    if !is_builtin(name)
        && let Some(command) = setup.custom_commands.iter().find(|command| command.name == name)
    {
        return custom::run(command, &line[name.len()..], chat, setup, context);
    }
    let command = match parse_command(line) {
        Ok(command) => command,
        Err(message) => {
            say_wrapped(setup.color, RED, &message, chat.screen.width, 2);
            return None;
        }
    };
    let color = setup.color;
    let width = chat.screen.width;
    match command {
        Command::Help => say_help(setup, width),
        Command::Mode(None) => say(&format!("mode: {}", chat.mode)),
        Command::Mode(Some(mode)) => {
            chat.mode = mode;
            say(&format!("mode: {mode}"));
            if mode == Mode::Bypass {
                say_bypass(setup, width);
            }
        }
        Command::Model(None) => list_models(chat, providers, color),
        Command::Model(Some(choice)) => switch_model(&choice, chat, setup, providers),
        // Rendered like a turn (Ctrl-C cancels it).
        Command::Compact => {
            if run_compact(chat, context) == TurnEnd::Quit {
                return Some(ReplEnd::Interrupted);
            }
        }
        Command::Resume(None) => sessions::choose(chat, setup, context.interrupts),
        Command::Resume(Some(all)) if all == "all" => chat.picking = sessions::list(chat, setup, true),
        Command::Resume(Some(choice)) => sessions::pick(chat, setup, &choice),
        Command::Mcp => {
            let report = setup.host.mcp_status();
            let report = if report.trim().is_empty() { "no MCP servers configured".to_string() } else { report };
            say_wrapped(color, "", &neutralize(report.trim_end()), width, 4);
        }
        Command::McpReconnect(name) => match setup.host.mcp_reconnect(&name) {
            Ok(()) => {
                let text = format!("reconnecting mcp server {name}{}", setup.glyphs.ellipsis);
                say_wrapped(color, DIM, &neutralize(&text), width, 2);
            }
            Err(message) => say_wrapped(color, RED, &neutralize(&format!("/mcp reconnect: {message}")), width, 2),
        },
        Command::Clear => {
            // A new session (its log is created at the first prompt); the agent stays.
            chat.clear();
            say_wrapped(color, DIM, "(new conversation)", width, 0);
        }
        Command::Tools => {
            for definition in chat.agent.registry.definitions() {
                let summary = first_sentence(&definition.description);
                say_wrapped(color, "", &neutralize(&format!("  {:<12} {summary}", definition.name)), width, 15);
            }
        }
        Command::Cost => {
            let price = price_for(chat.provider.price, &chat.provider.model);
            let cost = Cost {
                usage: &chat.usage,
                estimated: chat.usage_estimated,
                model: &chat.provider.model,
                price,
                separator: setup.glyphs.separator,
            };
            for line in render_cost(&cost, &chat.earlier).lines() {
                say_wrapped(color, "", line, width, 4);
            }
        }
        Command::Rewind(choice) => rewind::rewind(chat, setup, choice.as_deref(), context.interrupts),
        Command::Undo => rewind::undo(chat, setup, context.interrupts),
        Command::Diff => changes::show(chat, setup),
        Command::Status => status::show(chat, setup),
        Command::Init => return init::run(chat, setup, context),
        Command::Context => context_view::show(chat, setup),
        Command::Jobs => {
            let lines = setup.host.jobs_status();
            if lines.is_empty() {
                say_wrapped(color, "", "no background jobs", width, 0);
            }
            for line in lines {
                say_wrapped(color, "", &crate::text::neutralize(&line), width, 4);
            }
        }
        Command::Skills => {
            for (line, dim) in render_skills(&setup.skills) {
                say_wrapped(color, if dim { DIM } else { "" }, &neutralize(&line), width, 4);
            }
        }
        Command::Exit => return Some(ReplEnd::Exited),
    }
    None
}

/// `/help`: the commands, the person's own, then the keys.
fn say_help(setup: &Setup, width: usize) {
    let color = setup.color;
    let builtins = COMMANDS.iter().map(|(names, arguments, help)| (usage(names, arguments), help.to_string()));
    for line in render_help(builtins, width) {
        say(&line);
    }
    if setup.custom_commands.is_empty() {
        let hint = "  your own commands: Markdown files in .mewcode/commands/, .claude/commands/, \
                    $MEWCODE_HOME/commands/ or ~/.codex/prompts/ (fix-issue.md is /fix-issue)";
        say_wrapped(color, DIM, hint, width, 4);
    } else {
        say("your commands:");
        for line in render_help(setup.custom_commands.iter().map(custom::help_row), width) {
            say(&line);
        }
    }
    let keys = [
        "!command runs a shell command yourself (the model sees its output)",
        "@path sends a file with the prompt (Tab completes it)",
        "keys: Shift-Tab cycles the mode",
        "`\\` at the end of a line, Ctrl-J or Alt-Enter continues it",
        "Ctrl-G edits the line in $EDITOR",
        "Ctrl-O shows the last tool output whole",
        "Esc or Ctrl-C stops a turn (keep typing meanwhile: Enter queues a message)",
        "Ctrl-C twice or Ctrl-D at an empty prompt exits",
    ];
    say_wrapped(color, DIM, &format!("  {}", keys.join(setup.glyphs.separator)), width, 8);
}

/// `/skills`: a line per skill (name, description, its file and whose, what it shadows), or
/// where skills go when there are none; each line with whether it is dim.
fn render_skills(skills: &[Skill]) -> Vec<(String, bool)> {
    if skills.is_empty() {
        let hint = "no skills: folders with a SKILL.md in .mewcode/skills/, .claude/skills/ or .agents/skills/ \
                    (the project's, once trusted), $MEWCODE_HOME/skills/, ~/.claude/skills/ or ~/.agents/skills/";
        return vec![(hint.to_string(), true)];
    }
    let mut lines = Vec::new();
    for skill in skills {
        lines.push((format!("  {:<16} {}", skill.name, skill.description), false));
        let whose = match skill.origin {
            SkillOrigin::User => "yours",
            SkillOrigin::Project => "the project's",
        };
        let mut from = format!("    {} ({whose})", skill.file);
        if !skill.shadows.is_empty() {
            from.push_str(&format!("; shadows {}", skill.shadows.join(", ")));
        }
        lines.push((from, true));
    }
    lines
}

/// A built-in's usage as `/help` shows it: `/clear, /new`, `/mode [NAME]`.
fn usage(names: &[&str], arguments: &str) -> String {
    let names = names.join(", ");
    if arguments.is_empty() { names } else { format!("{names} {arguments}") }
}

/// `/help`: each command (usage, help) with its help, two columns on a wide terminal, the help
/// below the command on a narrow one; word-wrapped either way.
fn render_help(rows: impl Iterator<Item = (String, String)>, width: usize) -> Vec<String> {
    const USAGE_COLUMNS: usize = 28;
    rows.map(|(usage, help)| {
        if width >= 2 * USAGE_COLUMNS + 8 {
            wrap(&format!("  {usage:<USAGE_COLUMNS$} {help}"), width, USAGE_COLUMNS + 3)
        } else {
            format!("  {usage}\n{}", wrap(&format!("      {help}"), width, 6))
        }
    })
    .collect()
}

/// `/model`: every provider, the current one marked, with its model and window.
fn list_models(chat: &Chat, providers: &[ProviderConfig], color: bool) {
    let width = chat.screen.width;
    for provider in providers {
        let is_current = provider.name == chat.provider.name;
        let provider = if is_current { &chat.provider } else { provider };
        let current = if is_current { "*" } else { " " };
        let window = human_count(provider.context_window);
        let line = neutralize(&format!(
            "{current} {:<12} {:<10} {}  (context {window}, {})",
            provider.name,
            provider.protocol.as_str(),
            provider.model,
            provider.window_source.describe(),
        ));
        say_wrapped(color, "", &line, width, 4);
    }
    say_wrapped(color, DIM, "switch with /model PROVIDER or /model PROVIDER/MODEL", width, 0);
}

/// `/model PROVIDER[/MODEL]`: a new agent on that provider; the conversation carries over.
fn switch_model(choice: &ModelChoice, chat: &mut Chat, setup: &Setup, providers: &[ProviderConfig]) {
    let Some(provider) = providers.iter().find(|provider| provider.name == choice.provider) else {
        let names: Vec<&str> = providers.iter().map(|provider| provider.name.as_str()).collect();
        let message = format!("/model: no provider named {:?} (configured: {})", choice.provider, names.join(", "));
        say_wrapped(setup.color, RED, &neutralize(&message), chat.screen.width, 2);
        return;
    };
    let mut provider = provider.clone();
    if let Some(model) = &choice.model
        && *model != provider.model
    {
        provider.model = model.clone();
        // A window discovered for another model says nothing about this one.
        if matches!(provider.window_source, WindowSource::Discovered { .. }) {
            provider.context_window = provider.protocol.default_context_window();
            provider.window_source = WindowSource::Default;
        }
    }
    if let Some(notice) = setup.host.discover(&mut provider) {
        say_wrapped(setup.color, DIM, &neutralize(&notice), chat.screen.width, 2);
    }
    match setup.host.connect(&provider) {
        Ok(agent) => {
            // The conversation (history, log, context state) stays as it is.
            chat.agent = agent;
            if let Some(conversation) = &mut chat.conversation {
                conversation.set_model(&provider.model);
            }
            let text = format!(
                "now using {}{}{} (context window {}, {})",
                provider.name,
                setup.glyphs.separator,
                provider.model,
                human_count(provider.context_window),
                provider.window_source.describe()
            );
            say_wrapped(setup.color, "", &neutralize(&text), chat.screen.width, 2);
            chat.provider = provider;
        }
        Err(message) => say_wrapped(setup.color, RED, &neutralize(&format!("/model: {message}")), chat.screen.width, 2),
    }
}

/// The first sentence of a tool's description, on one line, without its final period (`/tools`).
/// A sentence ends at a period followed by whitespace or the end, or at a blank line; a period
/// is not an end when the word it closes has another period in it (`e.g.`, `i.e.`, `U.S.`) or
/// when the next word starts with a lower-case letter (`etc. and`, `vs. grep`). Periods inside
/// a word (`3.11`, `Node.js`, `README.md`) are never followed by whitespace, so never ends.
fn first_sentence(description: &str) -> String {
    let text = description.trim();
    let paragraph = text.split("\n\n").next().unwrap_or(text);
    let mut end = paragraph.len();
    for (index, c) in paragraph.char_indices() {
        if c != '.' {
            continue;
        }
        let rest = &paragraph[index + 1..];
        let followed_by_blank = rest.chars().next().is_none_or(char::is_whitespace);
        if !followed_by_blank {
            continue;
        }
        let word = paragraph[..index].rsplit(char::is_whitespace).next().unwrap_or("");
        let abbreviation = word.contains('.');
        let continues = rest.trim_start().chars().next().is_some_and(char::is_lowercase);
        if !abbreviation && !continues {
            end = index;
            break;
        }
    }
    let sentence = paragraph[..end].split_whitespace().collect::<Vec<_>>().join(" ");
    sentence.trim_end_matches('.').to_string()
}

/// Parses a line starting with `/`. `Err` carries the message to show.
fn parse_command(line: &str) -> Result<Command, String> {
    let mut words = line.split_whitespace();
    let name = words.next().unwrap_or("/");
    if name == "/mcp" {
        return match words.collect::<Vec<_>>().as_slice() {
            [] => Ok(Command::Mcp),
            ["reconnect", server] => Ok(Command::McpReconnect(server.to_string())),
            _ => Err("usage: /mcp, or /mcp reconnect NAME".to_string()),
        };
    }
    let argument = words.next();
    if let Some(extra) = words.next() {
        return Err(format!("{name}: unexpected argument {extra:?}; /help lists the commands"));
    }
    let no_argument = |command: Command| match argument {
        None => Ok(command),
        Some(argument) => Err(format!("{name} takes no argument (got {argument:?})")),
    };
    match name {
        "/help" | "/?" => no_argument(Command::Help),
        "/mode" => match argument {
            None => Ok(Command::Mode(None)),
            Some(text) => Mode::parse(text).map(|mode| Command::Mode(Some(mode))).ok_or_else(|| {
                format!("/mode: unknown mode {text:?}; the modes are default, acceptEdits, plan, bypass")
            }),
        },
        "/model" => Ok(Command::Model(argument.map(parse_model_choice))),
        "/compact" => no_argument(Command::Compact),
        "/resume" => Ok(Command::Resume(argument.map(str::to_string))),
        "/clear" | "/new" => no_argument(Command::Clear),
        "/tools" => no_argument(Command::Tools),
        "/cost" => no_argument(Command::Cost),
        "/rewind" => Ok(Command::Rewind(argument.map(str::to_string))),
        "/undo" => no_argument(Command::Undo),
        "/diff" => no_argument(Command::Diff),
        "/status" => no_argument(Command::Status),
        "/init" => no_argument(Command::Init),
        "/context" => no_argument(Command::Context),
        "/jobs" => no_argument(Command::Jobs),
        "/skills" => no_argument(Command::Skills),
        "/exit" | "/quit" => no_argument(Command::Exit),
        other => Err(format!("unknown command {other}; /help lists the commands")),
    }
}

/// `PROVIDER` or `PROVIDER/MODEL` (a model id may itself contain `/`, as OpenRouter's do).
fn parse_model_choice(text: &str) -> ModelChoice {
    match text.split_once('/') {
        Some((provider, model)) if !model.is_empty() => {
            ModelChoice { provider: provider.to_string(), model: Some(model.to_string()) }
        }
        Some((provider, _)) => ModelChoice { provider: provider.to_string(), model: None },
        None => ModelChoice { provider: text.to_string(), model: None },
    }
}

/// Completions for the text before the cursor: command names (built-in, then `custom`) after
/// `/`, mode names after `/mode `, provider names after `/model `. Returns the byte offset where
/// the replaced word starts and the candidates.
pub(crate) fn complete(before_cursor: &str, providers: &[String], custom: &[String]) -> (usize, Vec<String>) {
    if !before_cursor.starts_with('/') {
        return (0, Vec::new());
    }
    if let Some(found) = super::permissions::complete(before_cursor) {
        return found;
    }
    let Some((command, argument)) = before_cursor.split_once(' ') else {
        let builtins = COMMANDS.iter().flat_map(|(names, _, _)| names.iter().copied());
        let names = builtins.chain(custom.iter().map(String::as_str));
        return (0, names.filter(|name| name.starts_with(before_cursor)).map(String::from).collect());
    };
    if argument.contains(' ') {
        return (0, Vec::new());
    }
    let start = command.len() + 1;
    let options: Vec<String> = match command {
        "/mode" => ["default", "acceptEdits", "plan", "bypass"].iter().map(|mode| mode.to_string()).collect(),
        "/model" => providers.to_vec(),
        "/mcp" => vec!["reconnect".to_string()],
        _ => Vec::new(),
    };
    (start, options.into_iter().filter(|option| option.starts_with(argument)).collect())
}

#[cfg(test)]
#[path = "commands_tests.rs"]
mod tests;

//! The `--help` text: usage, options, the environment variables that configure a run.

/// The `--help` text.
pub(crate) const HELP: &str = "\
mewcode - a terminal AI coding agent

USAGE
  mewcode [OPTIONS]                  interactive REPL
  mewcode [OPTIONS] \"TASK\"           the REPL, starting with TASK as the first message
  mewcode [OPTIONS] -p PROMPT        run one task to completion, print the answer, exit;
                                     piped stdin is added below PROMPT (text only, capped)
  mewcode [OPTIONS] -p [-]           read the prompt from stdin (also when stdin is piped)
  mewcode mcp list [--json] [--url URL]
                                     connect to the MCP servers (or URL) and list their tools
  mewcode mcp call SERVER|URL TOOL [JSON]
                                     call one MCP tool by hand and print its result
  mewcode mcp accept SERVER          accept a server's changed tool definitions (pinning)
  mewcode mcp add NAME [--scope user|project] [--env K=V]... -- COMMAND [ARGS...]
  mewcode mcp add NAME [--scope user|project] [--header 'K: V']... --url URL
                                     add an MCP server to your config.yaml (user, the default)
                                     or the project's .mewcode.yaml; --force replaces one
  mewcode mcp remove NAME [--scope user|project]
                                     remove an MCP server from that config
  mewcode sessions [--json]          this project's sessions, newest first
  mewcode check TOOL JSON [--mode M] explain the permission decision for one tool call
  mewcode rewind [-c|--resume ID] [--json]
                                     a session's turns and the files each changed
  mewcode rewind TURN|undo [--code] [--conversation] [--keep-changed|--overwrite-changed]
                                     put files (and conversation) back as before TURN
  mewcode doctor                     config files, warnings, provider reachability

OPTIONS
  --output-format text|json|stream-json   output of -p (default text)
  --config FILE        an extra config file, highest precedence
  --provider NAME      use this configured provider
  --model MODEL        override the provider's model
  --mode MODE          default | acceptEdits | plan | bypass
  -C, --cwd DIR        project root (default: current directory)
  -c, --continue       resume the most recent session of this project
  --resume [ID]        resume session ID (no ID, REPL only: pick one in the picker)
  --max-iterations N   (-p) the iteration cap (default 25; any positive number)
  --append-system-prompt TEXT
                       add TEXT after the system prompt (the REPL and -p)
  --allowedTools RULES, --disallowedTools RULES
                       allow / deny rules for this run only, e.g. 'Bash(git *),Edit'
  --add-dir DIR[:ro]   another directory the file tools may read and write (read only with
                       :ro) and commands see the same way; repeatable (rewind: restore there)
  --image FILE         (-p) attach an image (PNG, JPEG, GIF, WebP; 3.75 MB, 8000 px) to the
                       prompt; repeatable
  --trust              (-p, check, mcp, doctor) trust this project's own config
  -q, --quiet          (-p) no tool activity, notices or error line on stderr
  --verbose            tool output in full (the REPL; -p text mode, on stderr)
  -V, --version        print the version
  -h, --help           print this help

ENVIRONMENT (without a config file, a key or base URL and a model are enough)
  MEWCODE_HOME         user directory (default ~/.mewcode)
  ANTHROPIC_API_KEY    key for anthropic providers without api_key
  ANTHROPIC_AUTH_TOKEN a gateway's token, sent as Authorization: Bearer when no key applies
  ANTHROPIC_BASE_URL   endpoint of anthropic providers without base_url
  OPENAI_API_KEY       key for openai providers without api_key
  OPENAI_BASE_URL      endpoint of openai providers without base_url (also OPENAI_API_BASE)
  MEWCODE_MODEL        the model (also ANTHROPIC_MODEL / OPENAI_MODEL for the implicit provider)
  NO_COLOR             no colours
  TERM=dumb            no escape sequences at all (no colours, spinner or cursor movement)

EXIT CODES
  0 done, 1 runtime failure, 2 usage or config error, 3 stopped by a limit (-p), 130 interrupted
";

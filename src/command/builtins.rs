//! Shell builtins that change what later commands run: variable assignments made by builtins
//! (`printf -v`, `declare`, `read`, `mapfile`, `let`, `getopts`, `unset`, `for`), and builtins that
//! rebind names (`alias`, `hash -p`, `enable`) or register code to run later (`trap`).
//!
//! Invariant: over-approximate. A name the builtin may assign is reported even when an option
//! might make it only print (`declare -p PATH`); an option that is not understood counts as
//! taking no value, so its operand is read as a name rather than skipped.

use super::runners;
use crate::shell::{arithmetic_names, code_marker};

/// Why `words` (a simple command, wrappers already peeled) changes what later commands run, if it
/// does: a dangerous variable it may assign or unset, or a name it rebinds.
pub(crate) fn builtin_risk(words: &[String]) -> Option<String> {
    let (program, args) = words.split_first()?;
    if let Some(arg) = code_evaluated(program, args) {
        return Some(format!("{program} evaluates {arg} as code (a subscript or arithmetic runs its substitutions)"));
    }
    let rebinding_or_assigning = match program.as_str() {
        "alias" => args.iter().any(|arg| arg.contains('=')).then(|| "alias rebinds a command name".to_string()),
        "hash" => option_value(args, "p").is_some().then(|| "hash -p rebinds a command name".to_string()),
        "enable" => (!args.is_empty()).then(|| "enable changes which builtins exist".to_string()),
        "trap" => trap_action(args).map(|_| "trap registers a command to run later".to_string()),
        "mapfile" | "readarray" if option_value(args, "C").is_some() => Some(format!("{program} -C runs a callback")),
        _ => assigned_names(words)
            .into_iter()
            .find(|name| runners::is_dangerous_variable(name))
            .map(|name| format!("{program} sets {name}")),
    };
    rebinding_or_assigning.or_else(|| arithmetic_risk(program, args))
}

/// `let`/`((…))` reading a variable, or `[[`'s arithmetic comparisons on anything but a number:
/// the value is evaluated as an expression, and a subscript in it runs its substitutions.
fn arithmetic_risk(program: &str, args: &[String]) -> Option<String> {
    match program {
        "let" | "((" => args
            .iter()
            .flat_map(|expression| arithmetic_unknown_reads(expression))
            .next()
            .map(|name| format!("{program} evaluates the value of {name} as code")),
        "[[" => arithmetic_operands(args)
            .find(|operand| !is_integer(operand))
            .map(|operand| format!("[[ evaluates {operand} as an arithmetic expression")),
        // `declare -i x=y` evaluates `y` (whose value may hold `a[$(cmd)]`) as arithmetic.
        "declare" | "typeset" | "local" if args.iter().any(|arg| is_flag_cluster(arg) && arg.contains('i')) => args
            .iter()
            .filter_map(|arg| arg.split_once('=').map(|(_, value)| value))
            .flat_map(arithmetic_unknown_reads)
            .next()
            .map(|name| format!("{program} -i evaluates the value of {name} as code")),
        _ => None,
    }
}

/// The argument of a builtin that bash evaluates as an arithmetic expression or as a variable
/// name with a subscript, when it holds a substitution: the subscript of `a[$(id)]` is
/// expanded when it is evaluated, even though the word was single-quoted
/// (`printf -v 'a[$(id)]' x`, `read`, `test -v`, `[[ -v`, `declare`, `let`, `unset`, …).
fn code_evaluated<'a>(program: &str, args: &'a [String]) -> Option<&'a str> {
    let evaluated: Vec<&String> = match program {
        "printf" => return option_value(args, "v").filter(|value| code_marker(value)),
        "let" | "declare" | "typeset" | "local" | "export" | "readonly" | "read" | "unset" | "test" | "[" | "[["
        | "getopts" | "mapfile" | "readarray" | "wait" | "((" => args.iter().collect(),
        _ => return None,
    };
    evaluated.into_iter().find(|arg| code_marker(arg)).map(String::as_str)
}

/// The script a `trap` registers: its first operand, unless it only lists or resets traps.
pub(crate) fn trap_action(args: &[String]) -> Option<&str> {
    let operands: Vec<&String> = args.iter().skip_while(|arg| arg.starts_with('-') && *arg != "-").collect();
    match operands.as_slice() {
        [] | [_] => None,
        [action, ..] if action.is_empty() || action.as_str() == "-" => None,
        [action, ..] => Some(action.as_str()),
    }
}

/// Every variable name `words` may assign (or unset), by builtin.
fn assigned_names(words: &[String]) -> Vec<String> {
    let Some((program, args)) = words.split_first() else { return Vec::new() };
    let mut names = Vec::new();
    match program.as_str() {
        "export" | "declare" | "typeset" | "local" | "readonly" => {
            let nameref = args.iter().any(|arg| is_flag_cluster(arg) && arg.contains('n'));
            for operand in args.iter().filter(|arg| !is_flag_cluster(arg)) {
                let (name, value) = operand.split_once('=').map_or((operand.as_str(), None), |(n, v)| (n, Some(v)));
                names.push(variable_of(name));
                // `declare -n ref=PATH` makes every later `ref=…` an assignment to PATH.
                if let (true, Some(value)) = (nameref, value) {
                    names.push(variable_of(value));
                }
            }
        }
        "unset" => names.extend(args.iter().filter(|arg| !arg.starts_with('-')).map(|arg| variable_of(arg))),
        "printf" => names.extend(option_value(args, "v").map(variable_of)),
        "read" => {
            names.extend(option_value(args, "a").map(variable_of));
            let operands = operands_after_options(args, &["a", "d", "i", "n", "N", "p", "t", "u"]);
            names.extend(operands.iter().map(|name| variable_of(name)));
            names.push("REPLY".into());
        }
        "mapfile" | "readarray" => {
            let operands = operands_after_options(args, &["d", "n", "O", "s", "u", "C", "c"]);
            names.extend(operands.iter().map(|name| variable_of(name)));
            names.push("MAPFILE".into());
        }
        "getopts" => {
            names.extend(args.get(1).map(|name| variable_of(name)));
            names.extend(["OPTARG".to_string(), "OPTIND".to_string()]);
        }
        "for" | "select" => names.extend(args.first().filter(|arg| !arg.starts_with("((")).map(|n| variable_of(n))),
        "let" | "((" => names.extend(args.iter().flat_map(|expression| arithmetic_names(expression))),
        _ => {}
    }
    names.retain(|name| !name.is_empty());
    names
}

/// The variables an arithmetic expression reads before assigning them: their values are
/// evaluated as expressions in turn, so a value read from a file (`read x < f; (( x ))`) can
/// hold `a[$(cmd)]`. A name first assigned with a plain `=` (`i=0` in `for ((i=0;i<3;i++))`)
/// holds a number afterwards and is not reported; subscripted names always are.
fn arithmetic_unknown_reads(expression: &str) -> Vec<String> {
    let chars: Vec<char> = expression.chars().collect();
    let mut known: Vec<String> = Vec::new();
    // Assigned names become known once their expression is done (`n = n + 1` reads `n` first).
    let mut assigned: Vec<String> = Vec::new();
    let mut unknown = Vec::new();
    let mut index = 0;
    let mut after_digit = false;
    while index < chars.len() {
        let c = chars[index];
        if matches!(c, ';' | ',') {
            known.append(&mut assigned);
        }
        if !(c.is_ascii_alphanumeric() || c == '_') {
            after_digit = c == '#' && after_digit;
            index += 1;
            continue;
        }
        if c.is_ascii_digit() || after_digit {
            after_digit = true;
            index += 1;
            continue;
        }
        let start = index;
        while index < chars.len() && (chars[index].is_ascii_alphanumeric() || chars[index] == '_') {
            index += 1;
        }
        let name: String = chars[start..index].iter().collect();
        let mut next = index;
        while next < chars.len() && chars[next] == ' ' {
            next += 1;
        }
        let plain_assignment = chars.get(next) == Some(&'=') && chars.get(next + 1) != Some(&'=');
        if plain_assignment {
            assigned.push(name);
        } else if !known.contains(&name) && !unknown.contains(&name) {
            unknown.push(name);
        }
    }
    unknown
}

/// The operands of `[[`'s arithmetic comparisons (`-eq`, `-lt`, …), which bash evaluates as
/// arithmetic expressions.
fn arithmetic_operands(args: &[String]) -> impl Iterator<Item = &String> {
    const OPERATORS: &[&str] = &["-eq", "-ne", "-lt", "-le", "-gt", "-ge"];
    args.iter().enumerate().filter(|(_, arg)| OPERATORS.contains(&arg.as_str())).flat_map(|(index, _)| {
        [index.checked_sub(1).and_then(|before| args.get(before)), args.get(index + 1)].into_iter().flatten()
    })
}

fn is_integer(text: &str) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text);
    !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit())
}

/// `name[subscript]` or `name+` (from `name+=`) → `name`.
fn variable_of(text: &str) -> String {
    let name = text.split('[').next().unwrap_or_default();
    name.trim_end_matches('+').to_string()
}

/// `-x`, `+x`, `-xn`: an option cluster of a declaration builtin.
fn is_flag_cluster(arg: &str) -> bool {
    arg.len() > 1 && (arg.starts_with('-') || arg.starts_with('+')) && !arg.contains('=')
}

/// The value of a one-letter option that takes one: `-v NAME`, `-vNAME`, or inside a cluster
/// (`-rv NAME`). Option parsing stops at `--` or the first operand.
fn option_value<'a>(args: &'a [String], letter: &str) -> Option<&'a str> {
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        if arg == "--" || !arg.starts_with('-') || arg == "-" {
            return None;
        }
        if let Some(position) = arg[1..].find(letter) {
            let rest = &arg[1 + position + letter.len()..];
            return if rest.is_empty() { args.get(index + 1).map(String::as_str) } else { Some(rest) };
        }
        index += 1;
    }
    None
}

/// The operands after the options, where `valued` options take the next word (or the rest of
/// their cluster) as their value.
fn operands_after_options<'a>(args: &'a [String], valued: &[&str]) -> &'a [String] {
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        if arg == "--" {
            return &args[index + 1..];
        }
        if !arg.starts_with('-') || arg == "-" {
            break;
        }
        let takes_next = arg[1..]
            .char_indices()
            .find(|(_, c)| valued.contains(&c.to_string().as_str()))
            .is_some_and(|(position, c)| position + 1 + c.len_utf8() == arg.len());
        index += if takes_next { 2 } else { 1 };
    }
    args.get(index..).unwrap_or_default()
}

#[cfg(test)]
#[path = "builtins_tests.rs"]
mod tests;

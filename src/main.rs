//! The `mewcode` binary: runs `app::main` and maps its outcome to an exit code, printing the
//! one error line at the top (SPEC §1.1 exit codes).
#![expect(clippy::print_stderr, reason = "main prints the one error line of a failed run")]

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let exit = mewcode::main(&args);
    if let Some(message) = exit.message() {
        eprintln!("mewcode: {message}");
    }
    std::process::exit(exit.code());
}

//! Shell completions and the man page, generated from the command-line definition.

use clap::CommandFactory as _;
use clap_complete::Shell;

use crate::args::Cli;

/// The completion script of `toolreplay` for `shell`.
pub(super) fn completions(shell: Shell) -> String {
    let cmd = &mut Cli::command();
    let mut out = Vec::new();
    let name = cmd.get_name().to_owned();
    clap_complete::generate(shell, cmd, name, &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// The man page (roff) of `toolreplay`: one page, `toolreplay(1)`, with its
/// options, then a section for each subcommand with its synopsis, description,
/// options and examples.
pub(super) fn man() -> String {
    let mut cmd = Cli::command();
    cmd.build();
    let mut out = Vec::new();
    // Writing to a Vec cannot fail.
    let top = clap_mangen::Man::new(cmd.clone());
    let _ = top.render_title(&mut out);
    let _ = top.render_name_section(&mut out);
    let _ = top.render_synopsis_section(&mut out);
    let _ = top.render_description_section(&mut out);
    let _ = top.render_options_section(&mut out);
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        let name = format!("{} {}", cmd.get_name(), sub.get_name());
        let page = clap_mangen::Man::new(sub.clone().bin_name(name.clone()));
        let mut part = Vec::new();
        let _ = page.render_synopsis_section(&mut part);
        let _ = page.render_description_section(&mut part);
        let _ = page.render_options_section(&mut part);
        if sub.get_after_help().is_some() {
            let _ = page.render_extra_section(&mut part);
        }
        let part = String::from_utf8_lossy(&part)
            .replace(".SH EXTRA", ".SS EXAMPLES")
            .replace(".SH ", ".SS ");
        out.extend_from_slice(format!(".SH \"{}\"\n", name.to_uppercase()).as_bytes());
        out.extend_from_slice(part.as_bytes());
    }
    let _ = top.render_version_section(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

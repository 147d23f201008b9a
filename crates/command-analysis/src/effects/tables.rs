//! The option tables of the programs a coding agent runs (every program but `git`, which has
//! subcommands: see [`super::git`]). Each entry is a fact from the program's manual, GTFOBins
//! or the argument-injection vectors, with examples that [`super::tables_hold`] checks.
//!
//! Options are read the way the programs read them: a long option exactly or by a prefix of
//! three letters or more (GNU `getopt_long` and most others accept unique prefixes; a prefix
//! that could also be another option is read as this one, which only ever asks for more
//! approval), `--name=value` or `--name value`, short options clustered (`-sSLo FILE`) with the
//! value attached or in the next word; `--` ends the options.

use super::scripts;
use super::{Effect, Scan, Want};

/// Whether an option takes a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Val {
    /// No value.
    No,
    /// A value, attached or the next word.
    Req,
    /// A value only when attached (`-i.bak`, `--in-place=.bak`).
    Attached,
}

/// What an option does with its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Does {
    /// The value is a file the program writes.
    Writes,
    /// The value is a command string the program runs.
    Runs,
    /// The option runs code the analysis cannot read (an interpreter's program text, an
    /// editor's commands, a configuration file that may run commands).
    Code,
    /// The option discards data.
    Destroys,
    /// The value is a file mode: setuid or setgid bits are a privilege.
    Mode,
    /// `ssh -o Key=Value`: `ProxyCommand`, `LocalCommand` and `KnownHostsCommand` run commands.
    SshOption,
    /// `tar --checkpoint-action=exec=CMD` runs CMD.
    Checkpoint,
    /// It takes a value and does nothing the rules look at (listed so its value is not read
    /// as an operand, or so a mode is known: `tar -c`, `sed -e`).
    Nothing,
}

/// One option of a table: its short letter (`'\0'` for none), long name (`""` for none; for a
/// table of single-dash long options, the name after the dash), value and effect.
#[derive(Debug, Clone, Copy)]
pub(super) struct Opt {
    short: char,
    long: &'static str,
    val: Val,
    does: Does,
}

const fn o(short: char, long: &'static str, val: Val, does: Does) -> Opt {
    Opt {
        short,
        long,
        val,
        does,
    }
}

/// What a program's operands are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Operands {
    /// Nothing the rules look at.
    Plain,
    /// Every operand is a file written (`tee`).
    AllWritten,
    /// The last of two or more operands is written (`cp`, `install`), unless `-t` names it.
    LastWritten,
    /// Every operand is written or removed (`mv`: the sources go, the destination is written).
    Moved,
    /// The first operand is the file written (`zip ARCHIVE FILES`).
    FirstWritten,
    /// `KEY=VALUE` operands; `of=` names the file written (`dd`).
    KeyValues,
    /// The first operand is a sed script unless `-e` or `-f` gave one; `-i` writes the files.
    SedScript,
    /// The first operand is an awk program unless `-f` gave one.
    AwkProgram,
    /// tar: the first word may be old-style letters; creating writes the `-f` archive and
    /// extracting writes into the `-C` directory.
    Tar,
}

/// What a word starting with `+` is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Plus {
    /// An operand.
    Operand,
    /// An editor command (code), except a line number or a search (`+10`, `+/main`).
    Editor,
    /// A pager command: code when it runs a shell or a pipe (`+!sh`, `+|cmd`), else moves
    /// (`+G`, `+F`, `+/x`).
    Pager,
}

/// One program's table.
#[derive(Debug)]
pub(super) struct Table {
    /// Program names (basenames).
    names: &'static [&'static str],
    /// Its options.
    opts: &'static [Opt],
    /// Long options are spelled with one dash (`find -fprint FILE`).
    single_dash: bool,
    /// What a word starting with `+` is to the program (`vim +':!sh'`, `less +!sh`).
    plus: Plus,
    /// What the operands are.
    operands: Operands,
    /// Command lines and what each must report.
    pub(super) examples: &'static [(&'static str, Want)],
}

use Does::{Checkpoint, Code, Destroys, Mode, Nothing, Runs, SshOption, Writes};
use Val::{Attached, No, Req};

const fn table(
    names: &'static [&'static str],
    opts: &'static [Opt],
    operands: Operands,
    examples: &'static [(&'static str, Want)],
) -> Table {
    Table {
        names,
        opts,
        single_dash: false,
        plus: Plus::Operand,
        operands,
        examples,
    }
}

/// The tables.
pub(super) const TABLES: &[Table] = &[
    // find(1): -delete removes what it finds; -fprint, -fprint0, -fprintf and -fls write a
    // file (GTFOBins: find, file write). -exec and -ok are read by the wrapper analysis.
    Table {
        names: &["find"],
        opts: &[
            o('\0', "delete", No, Destroys),
            o('\0', "fprint", Req, Writes),
            o('\0', "fprint0", Req, Writes),
            o('\0', "fprintf", Req, Writes),
            o('\0', "fls", Req, Writes),
            // Tests and options whose value is the next word (a `-name -delete` is a name).
            o('\0', "name", Req, Nothing),
            o('\0', "iname", Req, Nothing),
            o('\0', "path", Req, Nothing),
            o('\0', "ipath", Req, Nothing),
            o('\0', "wholename", Req, Nothing),
            o('\0', "lname", Req, Nothing),
            o('\0', "regex", Req, Nothing),
            o('\0', "iregex", Req, Nothing),
            o('\0', "newer", Req, Nothing),
            o('\0', "type", Req, Nothing),
            o('\0', "xtype", Req, Nothing),
            o('\0', "user", Req, Nothing),
            o('\0', "group", Req, Nothing),
            o('\0', "perm", Req, Nothing),
            o('\0', "size", Req, Nothing),
            o('\0', "mtime", Req, Nothing),
            o('\0', "atime", Req, Nothing),
            o('\0', "ctime", Req, Nothing),
            o('\0', "mmin", Req, Nothing),
            o('\0', "amin", Req, Nothing),
            o('\0', "cmin", Req, Nothing),
            o('\0', "maxdepth", Req, Nothing),
            o('\0', "mindepth", Req, Nothing),
            o('\0', "printf", Req, Nothing),
            o('\0', "samefile", Req, Nothing),
            o('\0', "fstype", Req, Nothing),
        ],
        single_dash: true,
        plus: Plus::Operand,
        operands: Operands::Plain,
        examples: &[
            (
                "find . -name *.o -delete",
                Want::Is(Effect::Destroys, "-delete"),
            ),
            (
                "find / -fprint /etc/x",
                Want::Is(Effect::Writes, "-fprint /etc/x"),
            ),
            (
                "find . -fprintf ~/.x %p",
                Want::Is(Effect::Writes, "-fprintf ~/.x"),
            ),
            ("find . -fls out.txt", Want::Nothing),
            ("find . -name -delete.txt", Want::Nothing),
            ("find . -maxdepth 2 -name -delete", Want::Nothing),
        ],
    },
    // tar(1): commands in --to-command, --use-compress-program (-I), --info-script and
    // --new-volume-script (-F), --rsh-command and --checkpoint-action=exec= (GTFOBins: tar);
    // --remove-files and --recursive-unlink delete; the archive of -c/-r/-u/-A and the -C
    // directory of -x are written.
    table(
        &["tar", "gtar", "bsdtar"],
        &[
            o('\0', "to-command", Req, Runs),
            o('I', "use-compress-program", Req, Runs),
            o('F', "info-script", Req, Runs),
            o('\0', "new-volume-script", Req, Runs),
            o('\0', "rsh-command", Req, Runs),
            o('\0', "checkpoint-action", Req, Checkpoint),
            o('\0', "remove-files", No, Destroys),
            o('\0', "recursive-unlink", No, Destroys),
            o('f', "file", Req, Nothing),
            o('C', "directory", Req, Nothing),
            o('c', "create", No, Nothing),
            o('r', "append", No, Nothing),
            o('u', "update", No, Nothing),
            o('A', "catenate", No, Nothing),
            o('x', "extract", No, Nothing),
            o('T', "files-from", Req, Nothing),
            o('X', "exclude-from", Req, Nothing),
            o('b', "blocking-factor", Req, Nothing),
            o('K', "starting-file", Req, Nothing),
            o('N', "newer", Req, Nothing),
            o('V', "label", Req, Nothing),
            o('g', "listed-incremental", Req, Nothing),
            o('L', "tape-length", Req, Nothing),
            o('H', "format", Req, Nothing),
        ],
        Operands::Tar,
        &[
            ("tar -xf a.tar", Want::Nothing),
            ("tar xzf a.tgz", Want::Nothing),
            ("tar czf out.tgz src", Want::Nothing),
            (
                "tar czf /tmp/out.tgz src",
                Want::Is(Effect::Writes, "czf /tmp/out.tgz"),
            ),
            ("tar -cf ~/x.tar .", Want::Is(Effect::Writes, "-cf ~/x.tar")),
            (
                "tar --create --file=../x.tar .",
                Want::Is(Effect::Writes, "--file=../x.tar"),
            ),
            ("tar -tf /tmp/x.tar", Want::Nothing),
            ("tar -xf a.tar -C /", Want::Is(Effect::Writes, "-C /")),
            (
                "tar -cf a.tar src --remove-files",
                Want::Is(Effect::Destroys, "--remove-files"),
            ),
            (
                "tar -cf /dev/null x --checkpoint=1 --checkpoint-action=exec=sh·-c·id",
                Want::Runs("sh -c id"),
            ),
            ("tar -xf a.tar --to-command=sh", Want::Runs("sh")),
            ("tar -I gzip·-9 -cf a.tgz x", Want::Runs("gzip -9")),
            (
                "tar -cf a.tar --use-compress=$C x",
                Want::Is(Effect::Code, "--use-compress=$C"),
            ),
        ],
    ),
    // rsync(1): -e/--rsh and --rsync-path are commands (argument-injection vectors); the
    // --delete family and --remove-source-files delete; --log-file, the batch files and a
    // local destination are written.
    table(
        &["rsync"],
        &[
            o('e', "rsh", Req, Runs),
            o('\0', "rsync-path", Req, Runs),
            o('\0', "delete", No, Destroys),
            o('\0', "del", No, Destroys),
            o('\0', "delete-before", No, Destroys),
            o('\0', "delete-during", No, Destroys),
            o('\0', "delete-delay", No, Destroys),
            o('\0', "delete-after", No, Destroys),
            o('\0', "delete-excluded", No, Destroys),
            o('\0', "delete-missing-args", No, Destroys),
            o('\0', "remove-source-files", No, Destroys),
            o('\0', "log-file", Req, Writes),
            o('\0', "write-batch", Req, Writes),
            o('\0', "only-write-batch", Req, Writes),
            o('\0', "exclude", Req, Nothing),
            o('\0', "include", Req, Nothing),
        ],
        Operands::LastWritten,
        &[
            ("rsync -av src/ dst/", Want::Nothing),
            ("rsync -e sh·-c·id x:y .", Want::Runs("sh -c id")),
            ("rsync --rsh=ssh·-p2222 a b:c", Want::Runs("ssh -p2222")),
            (
                "rsync -av --delete src/ dst/",
                Want::Is(Effect::Destroys, "--delete"),
            ),
            (
                "rsync -a --remove-source-files a b",
                Want::Is(Effect::Destroys, "--remove-source-files"),
            ),
            (
                "rsync -a --log-file=/tmp/log a b",
                Want::Is(Effect::Writes, "--log-file=/tmp/log"),
            ),
        ],
    ),
    // sed(1) (GNU): -i edits the files in place; the script's `e` command and `s///e` run
    // commands, `w`, `W` and `s///w` write files (GTFOBins: sed).
    table(
        &["sed", "gsed"],
        &[
            o('i', "in-place", Attached, Nothing),
            o('e', "expression", Req, Nothing),
            o('f', "file", Req, Nothing),
            o('l', "line-length", Req, Nothing),
        ],
        Operands::SedScript,
        &[
            ("sed -n 1,5p file", Want::Nothing),
            ("sed -i s/a/b/ file", Want::Nothing),
            (
                "sed -i s/a/b/ /etc/hosts",
                Want::Is(Effect::Writes, "/etc/hosts"),
            ),
            ("sed -n 1e·id x", Want::Is(Effect::Code, "1e id")),
            ("sed s/x/id/e f", Want::Is(Effect::Code, "s/x/id/e")),
            ("sed -e w·/tmp/x f", Want::Is(Effect::Writes, "-e w /tmp/x")),
            (
                "sed --expression=s/a/b/w·~/.x f",
                Want::Is(Effect::Writes, "--expression=s/a/b/w ~/.x"),
            ),
            ("sed s/we/ew/g f", Want::Nothing),
        ],
    ),
    // awk(1): system(), pipes to and from commands, and print to a file (GTFOBins: awk).
    table(
        &["awk", "gawk", "mawk", "nawk", "busybox-awk"],
        &[
            o('f', "file", Req, Nothing),
            o('v', "assign", Req, Nothing),
            o('F', "field-separator", Req, Nothing),
        ],
        Operands::AwkProgram,
        &[
            ("awk {print·$1} f", Want::Nothing),
            ("awk -F: $3·>·1000·{print·$1} /etc/passwd", Want::Nothing),
            (
                "awk BEGIN{system(\"id\")}",
                Want::Is(Effect::Code, "BEGIN{system(\"id\")}"),
            ),
            (
                "awk {print·|·\"sh\"} f",
                Want::Is(Effect::Code, "{print | \"sh\"}"),
            ),
            (
                "awk BEGIN{print·1·>·\"/etc/x\"}",
                Want::Is(Effect::Writes, "BEGIN{print 1 > \"/etc/x\"}"),
            ),
            ("awk {print·>·\"out.txt\"} f", Want::Nothing),
        ],
    ),
    // sort(1): -o writes a file; --compress-program is a command.
    table(
        &["sort"],
        &[
            o('o', "output", Req, Writes),
            o('\0', "compress-program", Req, Runs),
            o('k', "key", Req, Nothing),
            o('t', "field-separator", Req, Nothing),
            o('T', "temporary-directory", Req, Nothing),
            o('S', "buffer-size", Req, Nothing),
        ],
        Operands::Plain,
        &[
            ("sort -k2 -o sorted.txt in.txt", Want::Nothing),
            (
                "sort -o /etc/passwd x",
                Want::Is(Effect::Writes, "-o /etc/passwd"),
            ),
            (
                "sort --output=~/.ssh/authorized_keys k",
                Want::Is(Effect::Writes, "--output=~/.ssh/authorized_keys"),
            ),
            ("sort --compress-program=sh x", Want::Runs("sh")),
        ],
    ),
    // tee(1): its operands are files written, like a redirection (GTFOBins: tee).
    table(
        &["tee"],
        &[o('a', "append", No, Nothing)],
        Operands::AllWritten,
        &[
            ("tee out.log", Want::Nothing),
            (
                "tee -a /etc/sudoers",
                Want::Is(Effect::Writes, "/etc/sudoers"),
            ),
            ("tee log ../x", Want::Is(Effect::Writes, "../x")),
        ],
    ),
    // dd(1): of= names the file written.
    table(
        &["dd"],
        &[],
        Operands::KeyValues,
        &[
            ("dd if=a of=b bs=1M", Want::Nothing),
            ("dd if=a of=/etc/x", Want::Is(Effect::Writes, "of=/etc/x")),
        ],
    ),
    // cp(1) and install(1): the destination is written (-t names it); install -m with setuid
    // or setgid bits (GTFOBins: install, SUID).
    table(
        &["cp"],
        &[
            o('t', "target-directory", Req, Writes),
            o('S', "suffix", Req, Nothing),
        ],
        Operands::LastWritten,
        &[
            ("cp -r src dst", Want::Nothing),
            (
                "cp x /etc/cron.d/x",
                Want::Is(Effect::Writes, "/etc/cron.d/x"),
            ),
            ("cp -t ~/.ssh key", Want::Is(Effect::Writes, "-t ~/.ssh")),
            (
                "cp a .git/hooks/pre-commit",
                Want::Is(Effect::Writes, ".git/hooks/pre-commit"),
            ),
        ],
    ),
    table(
        &["install"],
        &[
            o('m', "mode", Req, Mode),
            o('t', "target-directory", Req, Writes),
            o('o', "owner", Req, Nothing),
            o('g', "group", Req, Nothing),
            o('S', "suffix", Req, Nothing),
        ],
        Operands::LastWritten,
        &[
            ("install -m 644 a b", Want::Nothing),
            (
                "install -m 4755 sh shx",
                Want::Is(Effect::Privilege, "-m 4755"),
            ),
            (
                "install --mode=u+s x y",
                Want::Is(Effect::Privilege, "--mode=u+s"),
            ),
            (
                "install -D a /usr/local/bin/a",
                Want::Is(Effect::Writes, "/usr/local/bin/a"),
            ),
        ],
    ),
    // mv(1): the sources are removed and the destination written.
    table(
        &["mv"],
        &[
            o('t', "target-directory", Req, Writes),
            o('S', "suffix", Req, Nothing),
        ],
        Operands::Moved,
        &[
            ("mv a b", Want::Nothing),
            ("mv ~/.bashrc x", Want::Is(Effect::Writes, "~/.bashrc")),
            ("mv x ../y", Want::Is(Effect::Writes, "../y")),
        ],
    ),
    // curl(1): files it writes (-o, -D, -c, --trace, --stderr, --output-dir, ...); -K reads a
    // config file that may set any of them.
    table(
        &["curl"],
        &[
            o('o', "output", Req, Writes),
            o('D', "dump-header", Req, Writes),
            o('c', "cookie-jar", Req, Writes),
            o('\0', "trace", Req, Writes),
            o('\0', "trace-ascii", Req, Writes),
            o('\0', "stderr", Req, Writes),
            o('\0', "output-dir", Req, Writes),
            o('\0', "etag-save", Req, Writes),
            o('\0', "hsts", Req, Writes),
            o('\0', "alt-svc", Req, Writes),
            o('K', "config", Req, Code),
            o('H', "header", Req, Nothing),
            o('d', "data", Req, Nothing),
            o('X', "request", Req, Nothing),
            o('u', "user", Req, Nothing),
            o('A', "user-agent", Req, Nothing),
            o('e', "referer", Req, Nothing),
            o('F', "form", Req, Nothing),
            o('T', "upload-file", Req, Nothing),
        ],
        Operands::Plain,
        &[
            ("curl -sSL https://x.example", Want::Nothing),
            ("curl -o out.html https://x.example", Want::Nothing),
            (
                "curl -sSLo /usr/local/bin/x https://x.example",
                Want::Is(Effect::Writes, "-sSLo /usr/local/bin/x"),
            ),
            (
                "curl --output ~/.bashrc https://x.example",
                Want::Is(Effect::Writes, "--output ~/.bashrc"),
            ),
            (
                "curl -K /tmp/cfg https://x.example",
                Want::Is(Effect::Code, "-K /tmp/cfg"),
            ),
            (
                "curl -c /tmp/j https://x.example",
                Want::Is(Effect::Writes, "-c /tmp/j"),
            ),
        ],
    ),
    // wget(1): files it writes (-O, -o, -a, -P, --save-cookies); -e runs a wgetrc command;
    // --use-askpass runs a program.
    table(
        &["wget"],
        &[
            o('O', "output-document", Req, Writes),
            o('o', "output-file", Req, Writes),
            o('a', "append-output", Req, Writes),
            o('P', "directory-prefix", Req, Writes),
            o('\0', "save-cookies", Req, Writes),
            o('e', "execute", Req, Code),
            o('\0', "use-askpass", Req, Runs),
            o('\0', "header", Req, Nothing),
            o('U', "user-agent", Req, Nothing),
        ],
        Operands::Plain,
        &[
            ("wget -q https://x.example/a.tgz", Want::Nothing),
            (
                "wget -O /etc/x https://x.example",
                Want::Is(Effect::Writes, "-O /etc/x"),
            ),
            (
                "wget --output-document=../x https://x.example",
                Want::Is(Effect::Writes, "--output-document=../x"),
            ),
            (
                "wget -e use_proxy=yes https://x.example",
                Want::Is(Effect::Code, "-e use_proxy=yes"),
            ),
            ("wget --use-askpass=sh https://x.example", Want::Runs("sh")),
        ],
    ),
    // zip(1): the archive is written; -TT/--unzip-command is a command (GTFOBins: zip); -m
    // deletes the originals.
    table(
        &["zip"],
        &[
            o('\0', "unzip-command", Req, Runs),
            o('\0', "TT", Req, Runs),
            o('m', "move", No, Destroys),
            o('O', "output-file", Req, Writes),
            o('x', "exclude", Req, Nothing),
            o('i', "include", Req, Nothing),
            o('b', "temp-path", Req, Nothing),
        ],
        Operands::FirstWritten,
        &[
            ("zip -r out.zip src", Want::Nothing),
            ("zip /tmp/x.zip a", Want::Is(Effect::Writes, "/tmp/x.zip")),
            (
                "zip x.zip a -T --unzip-command=sh·-c·id",
                Want::Runs("sh -c id"),
            ),
            ("zip -m x.zip a", Want::Is(Effect::Destroys, "-m")),
            ("zip x.zip a -T -TT sh·-c·id", Want::Runs("sh -c id")),
        ],
    ),
    // ssh(1) and scp(1): -o ProxyCommand=, LocalCommand= and KnownHostsCommand= run commands
    // (argument-injection vectors); -F reads a config that may set them; -E writes a log;
    // scp -S names the program it runs, and a local destination is written.
    table(
        &["ssh"],
        &[
            o('o', "", Req, SshOption),
            o('F', "", Req, Code),
            o('E', "", Req, Writes),
            o('i', "", Req, Nothing),
            o('p', "", Req, Nothing),
            o('l', "", Req, Nothing),
            o('L', "", Req, Nothing),
            o('R', "", Req, Nothing),
            o('D', "", Req, Nothing),
            o('J', "", Req, Nothing),
        ],
        Operands::Plain,
        &[
            ("ssh -p 22 host uptime", Want::Nothing),
            ("ssh -oProxyCommand=sh·-c·id x", Want::Runs("sh -c id")),
            ("ssh -o ProxyCommand·;id host", Want::Runs(";id")),
            (
                "ssh -o LocalCommand=id -o PermitLocalCommand=yes h",
                Want::Runs("id"),
            ),
            ("ssh -o StrictHostKeyChecking=no h", Want::Nothing),
            ("ssh -F /tmp/cfg h", Want::Is(Effect::Code, "-F /tmp/cfg")),
        ],
    ),
    table(
        &["scp"],
        &[
            o('o', "", Req, SshOption),
            o('S', "", Req, Runs),
            o('F', "", Req, Code),
            o('i', "", Req, Nothing),
            o('P', "", Req, Nothing),
        ],
        Operands::LastWritten,
        &[
            ("scp a host:b", Want::Nothing),
            (
                "scp host:id_rsa ~/.ssh/id_rsa",
                Want::Is(Effect::Writes, "~/.ssh/id_rsa"),
            ),
            ("scp -S sh·-c·id a b:c", Want::Runs("sh -c id")),
        ],
    ),
    // less(1): -o/-O write a log file; a `+` command and -k (lesskey) can run shell commands.
    Table {
        names: &["less", "more", "most"],
        opts: &[
            o('o', "log-file", Req, Writes),
            o('O', "LOG-FILE", Req, Writes),
            o('k', "lesskey-file", Req, Code),
            o('\0', "lesskey-src", Req, Code),
        ],
        single_dash: false,
        plus: Plus::Pager,
        operands: Operands::Plain,
        examples: &[
            ("less README.md", Want::Nothing),
            ("less +G log.txt", Want::Nothing),
            ("less -o /etc/x f", Want::Is(Effect::Writes, "-o /etc/x")),
            ("less +!sh f", Want::Is(Effect::Code, "+!sh")),
        ],
    },
    // man(1): -P/--pager and -H/--html name programs run (GTFOBins: man).
    table(
        &["man"],
        &[
            o('P', "pager", Req, Runs),
            o('H', "html", Attached, Runs),
            o('C', "config-file", Req, Code),
        ],
        Operands::Plain,
        &[
            ("man ls", Want::Nothing),
            ("man -P sh·-c·id ls", Want::Runs("sh -c id")),
            ("man --pager=cat ls", Want::Runs("cat")),
        ],
    ),
    // vim and friends: -c, --cmd, +CMD, -S and -s run editor commands (`:!` runs a shell:
    // GTFOBins: vim); -w and -W write a script file.
    Table {
        names: &["vim", "vi", "nvim", "view", "vimdiff", "ex", "rvim", "gvim"],
        opts: &[
            o('c', "", Req, Code),
            o('\0', "cmd", Req, Code),
            o('S', "", Req, Code),
            o('s', "", Req, Code),
            o('w', "", Req, Writes),
            o('W', "", Req, Writes),
        ],
        single_dash: false,
        plus: Plus::Editor,
        operands: Operands::Plain,
        examples: &[
            ("vim file.txt", Want::Nothing),
            ("vim +42 src/main.rs", Want::Nothing),
            ("vim -c :!sh", Want::Is(Effect::Code, "-c :!sh")),
            ("vim +:!id f", Want::Is(Effect::Code, "+:!id")),
            (
                "nvim --cmd lua·os.execute('id')",
                Want::Is(Effect::Code, "--cmd lua os.execute('id')"),
            ),
        ],
    },
    // Interpreters: program text on the command line (GTFOBins: python, node, perl, ruby).
    table(
        &["python", "python2", "python3", "pypy", "pypy3"],
        &[
            o('c', "", Req, Code),
            o('m', "", Req, Nothing),
            o('W', "", Req, Nothing),
        ],
        Operands::Plain,
        &[
            ("python3 script.py", Want::Nothing),
            ("python3 -m pytest", Want::Nothing),
            (
                "python -c import·os;os.system('id')",
                Want::Is(Effect::Code, "-c import os;os.system('id')"),
            ),
            (
                "python3 -Bc print(1)",
                Want::Is(Effect::Code, "-Bc print(1)"),
            ),
        ],
    ),
    table(
        &["node", "nodejs", "bun"],
        &[
            o('e', "eval", Req, Code),
            o('p', "print", Req, Code),
            o('r', "require", Req, Code),
            o('\0', "import", Req, Code),
            o('\0', "loader", Req, Code),
            o('\0', "experimental-loader", Req, Code),
        ],
        Operands::Plain,
        &[
            ("node index.js", Want::Nothing),
            (
                "node -e require('child_process').execSync('id')",
                Want::Is(Effect::Code, "-e require('child_process').execSync('id')"),
            ),
            ("node --eval=1", Want::Is(Effect::Code, "--eval=1")),
        ],
    ),
    table(
        &["ruby"],
        &[o('e', "", Req, Code), o('E', "encoding", Req, Nothing)],
        Operands::Plain,
        &[
            ("ruby -E UTF-8 x.rb", Want::Nothing),
            (
                "ruby -e exec·'/bin/sh'",
                Want::Is(Effect::Code, "-e exec '/bin/sh'"),
            ),
        ],
    ),
    table(
        &["perl"],
        &[o('e', "", Req, Code), o('E', "", Req, Code)],
        Operands::Plain,
        &[
            ("perl script.pl", Want::Nothing),
            (
                "perl -e exec·\"/bin/sh\"",
                Want::Is(Effect::Code, "-e exec \"/bin/sh\""),
            ),
            ("perl -pi -e s/a/b/ f", Want::Is(Effect::Code, "-e s/a/b/")),
            ("perl -lne print f", Want::Is(Effect::Code, "-lne print")),
        ],
    ),
];

/// The table of program `name`.
pub(super) fn of(name: &str) -> Option<&'static Table> {
    TABLES.iter().find(|t| t.names.contains(&name))
}

/// One option given: its table entry and its value (the word index holding it, the text).
type Given = (&'static Opt, Option<(usize, String)>, Vec<usize>);

/// Reads `argv`'s options and operands by table `t` into `out`.
pub(super) fn scan(
    t: &'static Table,
    argv: &[String],
    is_static: &dyn Fn(usize) -> bool,
    out: &mut Scan,
) {
    let mut given: Vec<Given> = Vec::new();
    let mut operands: Vec<usize> = Vec::new();
    let mut i = 1;
    // tar's old style: the first word is a cluster of letters without a dash, whose values
    // are the next words in order.
    if t.operands == Operands::Tar {
        if let Some(first) = argv.get(1).filter(|a| {
            !a.starts_with('-') && !a.is_empty() && a.chars().all(|c| c.is_ascii_alphabetic())
        }) {
            let mut next = 2;
            for c in first.chars() {
                let Some(opt) = t.opts.iter().find(|x| x.short == c) else {
                    continue;
                };
                if opt.val == Req {
                    let v = argv.get(next).cloned().map(|v| (next, v));
                    given.push((opt, v, vec![1, next]));
                    next += 1;
                } else {
                    given.push((opt, None, vec![1]));
                }
            }
            i = next;
        }
    }
    while let Some(a) = argv.get(i) {
        if a == "--" {
            operands.extend(i + 1..argv.len());
            break;
        }
        if let Some(cmd) = a
            .strip_prefix('+')
            .filter(|c| t.plus != Plus::Operand && !c.is_empty())
        {
            let moves = cmd.bytes().all(|b| b.is_ascii_digit()) || cmd.starts_with('/');
            let code = match t.plus {
                Plus::Editor => !moves,
                Plus::Pager => cmd.contains(['!', '|']),
                Plus::Operand => false,
            };
            if code {
                out.found(Effect::Code, argv, &[i]);
            }
            i += 1;
            continue;
        }
        if t.single_dash {
            match t.opts.iter().find(|x| a.strip_prefix('-') == Some(x.long)) {
                Some(opt) if opt.val == Req => {
                    let v = argv.get(i + 1).cloned().map(|v| (i + 1, v));
                    given.push((opt, v, vec![i, i + 1]));
                    i += 2;
                }
                Some(opt) => {
                    given.push((opt, None, vec![i]));
                    i += 1;
                }
                None => {
                    operands.push(i);
                    i += 1;
                }
            }
            continue;
        }
        if let Some(long) = a.strip_prefix("--").filter(|l| !l.is_empty()) {
            let (name, attached) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            if let Some(opt) = long_option(t.opts, name) {
                match (opt.val, attached) {
                    (_, Some(v)) => given.push((opt, Some((i, v.to_string())), vec![i])),
                    (Req, None) => {
                        let v = argv.get(i + 1).cloned().map(|v| (i + 1, v));
                        given.push((opt, v, vec![i, i + 1]));
                        i += 1;
                    }
                    _ => given.push((opt, None, vec![i])),
                }
            }
            i += 1;
            continue;
        }
        if a.len() > 1 && a.starts_with('-') {
            let cluster = &a[1..];
            // A long option spelled with one dash and capitals (`zip -TT CMD`).
            if let Some(opt) = t.opts.iter().find(|x| {
                x.short == '\0'
                    && x.long.len() > 1
                    && x.long.bytes().all(|b| b.is_ascii_uppercase())
                    && x.long == cluster
            }) {
                let v = argv.get(i + 1).cloned().map(|v| (i + 1, v));
                given.push((opt, v, vec![i, i + 1]));
                i += 2;
                continue;
            }
            for (at, c) in cluster.char_indices() {
                let Some(opt) = t.opts.iter().find(|x| x.short != '\0' && x.short == c) else {
                    continue;
                };
                let rest = &cluster[at + c.len_utf8()..];
                match opt.val {
                    No => given.push((opt, None, vec![i])),
                    Attached => {
                        let v = (!rest.is_empty()).then(|| (i, rest.to_string()));
                        given.push((opt, v, vec![i]));
                        break;
                    }
                    Req => {
                        if rest.is_empty() {
                            let v = argv.get(i + 1).cloned().map(|v| (i + 1, v));
                            given.push((opt, v, vec![i, i + 1]));
                            i += 1;
                        } else {
                            given.push((opt, Some((i, rest.to_string())), vec![i]));
                        }
                        break;
                    }
                }
            }
            i += 1;
            continue;
        }
        operands.push(i);
        i += 1;
    }
    for (opt, value, words) in &given {
        apply(opt, value.as_ref(), words, argv, is_static, out);
    }
    read_operands(t, &given, &operands, argv, is_static, out);
}

/// The option a long name spells: exactly, or as a prefix of three letters or more.
fn long_option(opts: &'static [Opt], name: &str) -> Option<&'static Opt> {
    opts.iter()
        .filter(|x| !x.long.is_empty())
        .find(|x| x.long == name)
        .or_else(|| {
            opts.iter()
                .filter(|x| !x.long.is_empty())
                .find(|x| name.len() >= 3 && x.long.starts_with(name))
        })
}

/// What one option given does.
fn apply(
    opt: &Opt,
    value: Option<&(usize, String)>,
    words: &[usize],
    argv: &[String],
    is_static: &dyn Fn(usize) -> bool,
    out: &mut Scan,
) {
    let fixed = |at: usize| is_static(at);
    match (opt.does, value) {
        (Writes, Some((at, v))) => out.writes(v, fixed(*at), argv, words),
        (Runs, Some((at, v))) => out.runs(*at, v, fixed(*at), argv, words),
        (Runs, None) | (Code, _) => out.found(Effect::Code, argv, words),
        (Destroys, _) => out.found(Effect::Destroys, argv, words),
        (Mode, Some((at, v))) if !fixed(*at) || sets_id_bits(v) => {
            out.found(Effect::Privilege, argv, words);
        }
        (SshOption, Some((at, v))) => {
            let (key, rest) = v
                .split_once(['=', ' ', '\t'])
                .map_or((v.as_str(), ""), |(k, r)| {
                    (k, r.trim_start_matches(['=', ' ', '\t']))
                });
            if !fixed(*at) {
                out.found(Effect::Code, argv, words);
            } else if ["proxycommand", "localcommand", "knownhostscommand"]
                .contains(&key.to_ascii_lowercase().as_str())
            {
                out.runs(*at, rest, true, argv, words);
            }
        }
        (Checkpoint, Some((at, v))) => {
            if let Some(cmd) = v.strip_prefix("exec=") {
                out.runs(*at, cmd, fixed(*at), argv, words);
            } else if !fixed(*at) {
                out.found(Effect::Code, argv, words);
            }
        }
        _ => {}
    }
}

/// Whether a mode sets the setuid or setgid bit (`4755`, `2755`, `u+s`, `g=s`).
fn sets_id_bits(mode: &str) -> bool {
    if mode.bytes().all(|b| b.is_ascii_digit()) {
        return mode.len() >= 4
            && mode
                .bytes()
                .rev()
                .nth(3)
                .is_some_and(|b| (b - b'0') & 0b110 != 0);
    }
    mode.split(',').any(|clause| {
        clause
            .split(['+', '='])
            .skip(1)
            .any(|perms| perms.contains('s'))
    })
}

/// Whether an operand names a file on another machine (`host:path`, `user@host:path`,
/// `rsync://...`): a colon before any slash. Such a destination is written there, not here.
fn is_remote(operand: &str) -> bool {
    operand
        .find(':')
        .is_some_and(|colon| !operand[..colon].contains('/'))
}

/// What the operands do, by the table's kind of operands.
fn read_operands(
    t: &Table,
    given: &[Given],
    operands: &[usize],
    argv: &[String],
    is_static: &dyn Fn(usize) -> bool,
    out: &mut Scan,
) {
    let word = |i: usize| argv.get(i).map_or("", String::as_str);
    let has = |long: &str| given.iter().any(|(o, _, _)| o.long == long);
    match t.operands {
        Operands::Plain => {}
        Operands::AllWritten | Operands::Moved => {
            for &i in operands {
                out.writes(word(i), is_static(i), argv, &[i]);
            }
        }
        Operands::LastWritten => {
            if let (false, [_, .., last]) = (has("target-directory"), operands) {
                if !is_remote(word(*last)) {
                    out.writes(word(*last), is_static(*last), argv, &[*last]);
                }
            }
        }
        Operands::FirstWritten => {
            if let Some(&first) = operands.first() {
                out.writes(word(first), is_static(first), argv, &[first]);
            }
        }
        Operands::KeyValues => {
            for &i in operands {
                if let Some(target) = word(i).strip_prefix("of=") {
                    out.writes(target, is_static(i), argv, &[i]);
                }
            }
        }
        Operands::SedScript => {
            let mut scripts: Vec<(usize, String, Vec<usize>)> = given
                .iter()
                .filter(|(o, _, _)| o.long == "expression")
                .filter_map(|(_, v, w)| v.as_ref().map(|(at, s)| (*at, s.clone(), w.clone())))
                .collect();
            let mut files = operands;
            if scripts.is_empty() && !has("file") {
                if let Some((&first, rest)) = operands.split_first() {
                    scripts.push((first, word(first).to_string(), vec![first]));
                    files = rest;
                }
            }
            for (at, script, words) in &scripts {
                if !is_static(*at) {
                    out.found(Effect::Code, argv, words);
                    continue;
                }
                let s = scripts::sed(script);
                if s.code {
                    out.found(Effect::Code, argv, words);
                }
                for target in &s.writes {
                    out.writes(target, true, argv, words);
                }
            }
            if has("in-place") {
                for &i in files {
                    out.writes(word(i), is_static(i), argv, &[i]);
                }
            }
        }
        Operands::AwkProgram => {
            if has("file") {
                return;
            }
            if let Some(&first) = operands.first() {
                if !is_static(first) {
                    out.found(Effect::Code, argv, &[first]);
                    return;
                }
                let a = scripts::awk(word(first));
                if a.code {
                    out.found(Effect::Code, argv, &[first]);
                }
                for target in &a.writes {
                    out.writes(target, true, argv, &[first]);
                }
            }
        }
        Operands::Tar => {
            let creates = ["create", "append", "update", "catenate"]
                .iter()
                .any(|m| has(m));
            let value = |long: &str| {
                given
                    .iter()
                    .find(|(o, v, _)| o.long == long && v.is_some())
                    .and_then(|(_, v, w)| v.as_ref().map(|(at, s)| (*at, s.clone(), w.clone())))
            };
            if creates {
                if let Some((at, file, words)) = value("file") {
                    out.writes(&file, is_static(at), argv, &words);
                }
            }
            if has("extract") {
                if let Some((at, dir, words)) = value("directory") {
                    out.writes(&dir, is_static(at), argv, &words);
                }
            }
        }
    }
}

# conv for fish (3.1 or later). Load it from ~/.config/fish/config.fish with:
#     conv init fish | source
#
# Alt-F  sends the command line to this terminal's conversation as a follow-up
# Alt-N  starts a new conversation with it
# With an empty line, either key shows the current conversation's last exchange.
# Alt-K  replaces the line, a description ("find files over 100 MB"), by the
#        shell command it asks for, to read, edit and run yourself; press it
#        again on "make it recursive" to refine. conv never runs the command.
# Alt-J  searches every turn of every conversation as you type (the line typed
#        in); Enter makes the one chosen this terminal's conversation.
# conv_prompt prints the prompt segment (conv:ID·TURNS): call it from
# fish_right_prompt or fish_prompt. Set CONV_NO_BIND=1 before loading to bind
# no keys, and bind conv_follow_up / conv_new_conversation / conv_command /
# conv_resume yourself; CONV_FOLLOW_KEY / CONV_NEW_KEY / CONV_COMMAND_KEY /
# CONV_RESUME_KEY change the keys. The line runs as
# `conv ask -c -- '<the line>'`, single-quoted: it reaches conv as one argument
# and is never evaluated.

status is-interactive; or exit 0
set -q _conv_loaded; and exit 0
set -g _conv_loaded 1
set -g _conv_bin __CONV_BIN__
set -g _conv_sessions __CONV_STATE__/sessions

# A name for this terminal, made without forking: each shell gets its own,
# so two terminals follow up two conversations.
set -gx CONV_SESSION "f$fish_pid."(random)"."(random)
set -g _conv_last_command ""
set -g _conv_last_status ""
set -g _conv_keyed ""

# The prompt segment, from conv's state file, with builtins only (no fork).
# A file that does not hold what conv writes shows nothing. (fish has no
# builtin clock, so an expired session shows until conv next runs here.)
function conv_prompt --description 'conv prompt segment: conv:ID·TURNS'
    set -l file $_conv_sessions/$CONV_SESSION
    test -f $file; and test -r $file; or return 0
    read -l -d ' ' id short turns used expires rest <$file; or return 0
    string match -qr '^[a-z0-9_-]+$' -- $short; or return 0
    string match -qr '^[0-9]+$' -- $turns; or return 0
    printf '%s' "conv:$short·$turns"
end

# The command line the user ran last and its status (CONV_SHARE_LAST_COMMAND=1);
# conv's own lines from the keys are not theirs.
function _conv_remember_command --on-event fish_postexec
    set -l last_status $status
    if test -n "$_conv_keyed"
        set -g _conv_keyed ""
        set -e CONV_LAST_COMMAND CONV_LAST_STATUS
    else if test "$CONV_SHARE_LAST_COMMAND" = 1
        set -g _conv_last_command $argv[1]
        set -g _conv_last_status $last_status
    end
end

# Single quotes that fish reads back as TEXT: only \ and ' are special in them.
function _conv_quote
    printf "'%s'" (string replace -a -- '\\' '\\\\' $argv[1] | string replace -a -- "'" "\\'" | string collect)
end

# The keys turn the line into the conv command that asks it, single-quoted (so
# no word in it is expanded and no abbreviation applies), to run as if typed:
# the screen and history show the question asked, the answer prints below a
# clean prompt, and Ctrl-C behaves as for any command.
function _conv_stash
    set -l text (commandline -b | string collect)
    set -l command conv
    set -l found (command -s conv)  # plain "conv" when PATH finds this one
    test "$found" = "$_conv_bin"; or set command (_conv_quote $_conv_bin | string collect)
    if test $argv[1] = resume  # the picker, the line typed into it: every turn of every conversation searched
        if string match -qr '^\s*$' -- "$text"
            commandline -r "$command resume"
        else
            commandline -r -- "$command resume --pick -- "(_conv_quote $text | string collect)
        end
    else if string match -qr '^\s*$' -- "$text"
        commandline -r "$command show --last 2"
    else
        if test $argv[1] = follow
            set command "$command ask -c --"
        else
            set command "$command ask --"
        end
        if test "$CONV_SHARE_LAST_COMMAND" = 1; and test -n "$_conv_last_command"
            set -gx CONV_LAST_COMMAND $_conv_last_command
            set -gx CONV_LAST_STATUS $_conv_last_status
        end
        commandline -r -- "$command "(_conv_quote $text | string collect)
    end
    set -g _conv_keyed 1
    commandline -f execute
end

function conv_follow_up --description 'send the command line to this terminal\'s conversation'
    _conv_stash follow
end

function conv_new_conversation --description 'start a new conversation with the command line'
    _conv_stash new
end

function conv_resume --description 'search every conversation as you type, and continue the one chosen'
    _conv_stash resume
end

# The command comes back on stdout and goes into the command line as data:
# nothing in it is expanded or run. While it is asked, a line says so (as
# zsh's and bash's do); a failure prints conv's message; the line itself
# stays as typed, as it does on Ctrl-C.
function conv_command --description 'replace the command line by the shell command it describes'
    set -l text (commandline -b | string collect)
    string match -qr '^\s*$' -- "$text"; and return 0
    function _conv_repaint --on-signal SIGINT  # Ctrl-C ends this binding early: the line is drawn again
        functions -e _conv_repaint
        commandline -f repaint
    end
    printf '\n%s\n' "conv: asking for a command…" >&2
    set -l out ($_conv_bin cmd -q --shell fish -- $text 2>&1 | string collect)
    set -l code $pipestatus[1]
    functions -e _conv_repaint
    if test $code -eq 0
        commandline -r -- $out
        commandline -f end-of-buffer
        commandline -f repaint
    else
        test -n "$out"; or set out "conv cmd was stopped"
        printf '\n%s\n' $out >&2
        commandline -f repaint
    end
end

if not set -q CONV_NO_BIND
    set -l follow_key \ef
    set -q CONV_FOLLOW_KEY; and set follow_key $CONV_FOLLOW_KEY
    set -l new_key \en
    set -q CONV_NEW_KEY; and set new_key $CONV_NEW_KEY
    set -l command_key \ek
    set -q CONV_COMMAND_KEY; and set command_key $CONV_COMMAND_KEY
    set -l resume_key \ej
    set -q CONV_RESUME_KEY; and set resume_key $CONV_RESUME_KEY
    for mode in default insert
        bind -M $mode $resume_key conv_resume  # first: another key set to it wins
        bind -M $mode $follow_key conv_follow_up
        bind -M $mode $new_key conv_new_conversation
        bind -M $mode $command_key conv_command
    end
end

# Tab completion: conv runs only when TAB is pressed (conv __complete prints
# VALUE<TAB>DESCRIPTION lines, which fish shows as they are).
function _conv_complete
    set -l words (commandline -opc) (commandline -ct)
    $_conv_bin __complete $words[2..-1] 2>/dev/null
end
complete -c conv -f -a '(_conv_complete)'

# conv for fish (3.1 or later). Load it from ~/.config/fish/config.fish with:
#     conv init fish | source
#
# Alt-F  sends the command line to this terminal's conversation as a follow-up
# Alt-N  starts a new conversation with it
# With an empty line, either key shows the current conversation's last exchange.
# conv_prompt prints the prompt segment (conv:ID·TURNS): call it from
# fish_right_prompt or fish_prompt. Set CONV_NO_BIND=1 before loading to bind
# no keys, and bind conv_follow_up / conv_new_conversation yourself;
# CONV_FOLLOW_KEY / CONV_NEW_KEY change the keys. The command line is handed to
# conv as one argument: it is never evaluated.

status is-interactive; or exit 0
set -q _conv_loaded; and exit 0
set -g _conv_loaded 1
set -g _conv_bin __CONV_BIN__
set -g _conv_sessions __CONV_STATE__/sessions

# A name for this terminal, made without forking: each shell gets its own,
# so two terminals follow up two conversations.
set -gx CONV_SESSION "f$fish_pid."(random)"."(random)
set -g _conv_pending ""
set -g _conv_mode ""
set -g _conv_last_command ""
set -g _conv_last_status ""
# history append arrived in fish 3.7; before it, follow-ups leave no history
set -g _conv_history_append (string match -qr '^(3\.([7-9]|[1-9][0-9])|[4-9]|[1-9][0-9])' -- $version; and echo 1)

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

function _conv_remember_command --on-event fish_postexec
    set -g _conv_last_status $status
    if test "$CONV_SHARE_LAST_COMMAND" = 1; and test "$argv[1]" != ' _conv_run'
        set -g _conv_last_command $argv[1]
    end
end

# The key functions put the line aside and run a fixed command instead, so the
# answer prints below a clean prompt and Ctrl-C behaves as for any command.
function _conv_stash
    set -g _conv_pending (commandline -b | string collect)
    if string match -qr '^\s*$' -- "$_conv_pending"
        set -g _conv_mode last
    else
        set -g _conv_mode $argv[1]
    end
    commandline -r ' _conv_run'
    commandline -f execute
end

function conv_follow_up --description 'send the command line to this terminal\'s conversation'
    _conv_stash follow
end

function conv_new_conversation --description 'start a new conversation with the command line'
    _conv_stash new
end

function _conv_run
    set -l text $_conv_pending
    set -l mode $_conv_mode
    set -g _conv_pending ""
    set -g _conv_mode ""
    set -l context
    if test "$CONV_SHARE_LAST_COMMAND" = 1; and test -n "$_conv_last_command"
        set context CONV_LAST_COMMAND=$_conv_last_command CONV_LAST_STATUS=$_conv_last_status
    end
    switch $mode
        case last
            $_conv_bin show --last 2
        case follow
            # history gets a command that asks again (the internal one, started
            # with a space, never enters it)
            test -n "$_conv_history_append"; and builtin history append -- "conv ask -c -- "(string escape -- $text)
            env $context $_conv_bin ask -c -- $text
        case new
            # a plain ask: "that's wrong" soon after an answer is feedback on it
            test -n "$_conv_history_append"; and builtin history append -- "conv ask -- "(string escape -- $text)
            env $context $_conv_bin ask -- $text
    end
end

if not set -q CONV_NO_BIND
    set -l follow_key \ef
    set -q CONV_FOLLOW_KEY; and set follow_key $CONV_FOLLOW_KEY
    set -l new_key \en
    set -q CONV_NEW_KEY; and set new_key $CONV_NEW_KEY
    for mode in default insert
        bind -M $mode $follow_key conv_follow_up
        bind -M $mode $new_key conv_new_conversation
    end
end

# Tab completion: conv runs only when TAB is pressed (conv __complete prints
# VALUE<TAB>DESCRIPTION lines, which fish shows as they are).
function _conv_complete
    set -l words (commandline -opc) (commandline -ct)
    $_conv_bin __complete $words[2..-1] 2>/dev/null
end
complete -c conv -f -a '(_conv_complete)'

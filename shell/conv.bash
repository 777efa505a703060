# conv for bash (4.3 or later). Load it from ~/.bashrc with:  eval "$(conv init bash)"
#
# Alt-F  sends the command line to this terminal's conversation as a follow-up
# Alt-N  starts a new conversation with it
# With an empty line, either key shows the current conversation's last exchange.
# CONV_PROMPT holds the prompt segment (conv:ID·TURNS), refreshed before each
# prompt; put ${CONV_PROMPT} in PS1 (single-quoted, so no subshell runs).
# Set CONV_NO_BIND=1 before loading to bind no keys, then bind your own with
# conv_bind_keys KEY-FOR-FOLLOW-UP KEY-FOR-NEW, e.g. conv_bind_keys '\ex' '\ey'.
# The command line is handed to conv as one argument: it is never evaluated.

# One guarded block, no top-level return: that would end an rc file sourced again.
if [[ $- == *i* && -z ${_conv_loaded-} ]]; then
_conv_loaded=1
_conv_bin=__CONV_BIN__
_conv_sessions=__CONV_STATE__/sessions

# A name for this terminal, made without forking: each shell gets its own,
# so two terminals follow up two conversations.
export CONV_SESSION="b$$.$RANDOM.${EPOCHSECONDS:-0}"
_conv_pending="" _conv_mode="" _conv_last_status=""
export CONV_PROMPT=""

# The prompt segment, from conv's state file, with builtins only (no fork).
# A file that does not hold what conv writes shows nothing.
_conv_prompt_update() {
  local last_status=$?
  _conv_last_status=$last_status
  CONV_PROMPT=""
  local file=$_conv_sessions/$CONV_SESSION id short turns used expires rest
  [[ -f $file && -r $file ]] || return "$last_status"
  IFS=$' \t' read -r id short turns used expires rest < "$file" || return "$last_status"
  if [[ $short =~ ^[a-z0-9_-]+$ && $turns =~ ^[0-9]+$ && $expires =~ ^[0-9]{1,11}$ ]] \
     && (( expires > ${EPOCHSECONDS:-0} )); then
    CONV_PROMPT="conv:${short}·${turns}"
  fi
  return "$last_status"
}

# Bound (with bind -x) to hidden keys: put the line aside and run a fixed
# command instead, so the answer prints below a clean prompt and Ctrl-C
# behaves as for any command. The visible keys are macros: hidden key, Enter.
_conv_stash() {
  if [[ -z ${READLINE_LINE//[[:space:]]/} ]]; then
    _conv_mode=last
  else
    _conv_mode=$1
  fi
  _conv_pending=$READLINE_LINE
  READLINE_LINE=' _conv_run'
  READLINE_POINT=${#READLINE_LINE}
}

_conv_run() {
  local text=$_conv_pending mode=$_conv_mode quoted
  _conv_pending="" _conv_mode=""
  local -a context=()
  if [[ ${CONV_SHARE_LAST_COMMAND-} == 1 ]]; then
    local last
    last=$(HISTTIMEFORMAT='' builtin fc -ln -1 2>/dev/null)  # the one fork, on this key only
    last=${last#"${last%%[![:space:]]*}"}
    [[ -n $last ]] && context=(CONV_LAST_COMMAND="$last" CONV_LAST_STATUS="$_conv_last_status")
  fi
  printf -v quoted '%q' "$text"
  case $mode in
    last) "$_conv_bin" show --last 2 ;;
    follow)
      builtin history -s -- "conv ask -c -- $quoted"  # history gets a command that asks again
      env "${context[@]}" "$_conv_bin" ask -c -- "$text" ;;
    new)
      builtin history -s -- "conv ask -- $quoted"  # a plain ask: "that's wrong" soon after an answer is feedback
      env "${context[@]}" "$_conv_bin" ask -- "$text" ;;
  esac
}

conv_bind_keys() {
  local map
  for map in emacs vi-insert; do
    bind -m "$map" -x '"\C-x\C-_f": _conv_stash follow'
    bind -m "$map" -x '"\C-x\C-_n": _conv_stash new'
    bind -m "$map" "\"$1\": \"\C-x\C-_f\C-m\""
    bind -m "$map" "\"$2\": \"\C-x\C-_n\C-m\""
  done
}

# The internal command never enters history (the question does, as a conv command).
HISTIGNORE="${HISTIGNORE:+$HISTIGNORE:} _conv_run:_conv_run"

if [[ ${PROMPT_COMMAND@a} == *a* ]]; then
  PROMPT_COMMAND=(_conv_prompt_update "${PROMPT_COMMAND[@]}")
else
  PROMPT_COMMAND="_conv_prompt_update${PROMPT_COMMAND:+;$PROMPT_COMMAND}"
fi

if [[ -z ${CONV_NO_BIND-} ]]; then
  conv_bind_keys "${CONV_FOLLOW_KEY:-\ef}" "${CONV_NEW_KEY:-\en}"
fi

# Tab completion: conv runs only when TAB is pressed (conv __complete prints
# VALUE<TAB>DESCRIPTION lines; bash shows the values).
_conv_complete() {
  local line
  COMPREPLY=()
  while IFS= read -r line; do
    [[ -n $line ]] && COMPREPLY+=("${line%%$'\t'*}")
  done < <("$_conv_bin" __complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
}
complete -o default -F _conv_complete conv
fi

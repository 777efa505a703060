# conv for bash (4.3 or later). Load it from ~/.bashrc with:  eval "$(conv init bash)"
#
# Alt-F  sends the command line to this terminal's conversation as a follow-up
# Alt-N  starts a new conversation with it
# With an empty line, either key shows the current conversation's last exchange.
# Alt-K  replaces the line, a description ("find files over 100 MB"), by the
#        shell command it asks for, to read, edit and run yourself; press it
#        again on "make it recursive" to refine. conv never runs the command.
# Alt-J  searches every turn of every conversation as you type (the line typed
#        in); Enter makes the one chosen this terminal's conversation.
# CONV_PROMPT holds the prompt segment (conv:ID·TURNS), refreshed before each
# prompt; put ${CONV_PROMPT} in PS1 (single-quoted, so no subshell runs).
# Set CONV_NO_BIND=1 before loading to bind no keys, then bind your own with
# conv_bind_keys KEY-FOR-FOLLOW-UP KEY-FOR-NEW [KEY-FOR-COMMAND [KEY-FOR-RESUME]],
# e.g. conv_bind_keys '\ex' '\ey' '\ez' '\ew'.
# The line runs as `conv ask -c -- '<the line>'`, single-quoted: it reaches
# conv as one argument and is never evaluated.

# One guarded block, no top-level return: that would end an rc file sourced again.
if [[ $- == *i* && -z ${_conv_loaded-} ]]; then
_conv_loaded=1
_conv_bin=__CONV_BIN__
_conv_sessions=__CONV_STATE__/sessions

# A name for this terminal, made without forking: each shell gets its own,
# so two terminals follow up two conversations.
export CONV_SESSION="b$$.$RANDOM.${EPOCHSECONDS:-0}"
_conv_last_command="" _conv_last_status="" _conv_keyed="" _conv_fresh=""
export CONV_PROMPT=""

# The prompt segment, from conv's state file, with builtins only (no fork).
# A file that does not hold what conv writes shows nothing.
_conv_prompt_update() {
  local last_status=$?
  if [[ -n $_conv_keyed ]]; then  # conv's own line from a key: not the user's last command
    _conv_keyed=""
    unset CONV_LAST_COMMAND CONV_LAST_STATUS
  else
    _conv_last_status=$last_status _conv_fresh=1
  fi
  CONV_PROMPT=""
  local file=$_conv_sessions/$CONV_SESSION short turns expires rest
  [[ -f $file && -r $file ]] || return "$last_status"
  IFS=$' \t' read -r _ short turns _ expires rest < "$file" || return "$last_status"
  if [[ $short =~ ^[a-z0-9_-]+$ && $turns =~ ^[0-9]+$ && $expires =~ ^[0-9]{1,11}$ ]] \
     && (( expires > ${EPOCHSECONDS:-0} )); then
    CONV_PROMPT="conv:${short}·${turns}"
  fi
  return "$last_status"
}

# Bound (with bind -x) to hidden keys: turn the line into the conv command that
# asks it, single-quoted (so no word in it is expanded and no alias applies), to
# run as if typed: the screen and history show the question asked, the answer
# prints below a clean prompt, and Ctrl-C behaves as for any command. The
# visible keys are macros: hidden key, Enter.
_conv_stash() {
  local sq="'\\''" dir IFS=:
  local command="'${_conv_bin//\'/$sq}'"
  for dir in $PATH; do  # plain "conv" when PATH finds this one (found without forking)
    if [[ -f ${dir:-.}/conv && -x ${dir:-.}/conv ]]; then
      [[ ${dir:-.}/conv -ef $_conv_bin ]] && command=conv
      break
    fi
  done
  if [[ $1 == resume ]]; then  # the picker, the line typed into it: every turn of every conversation searched
    if [[ -z ${READLINE_LINE//[[:space:]]/} ]]; then
      READLINE_LINE="$command resume"
    else
      READLINE_LINE="$command resume --pick -- '${READLINE_LINE//\'/$sq}'"
    fi
  elif [[ -z ${READLINE_LINE//[[:space:]]/} ]]; then
    READLINE_LINE="$command show --last 2"
  else
    [[ $1 == follow ]] && command+=" ask -c --" || command+=" ask --"
    if [[ ${CONV_SHARE_LAST_COMMAND-} == 1 ]]; then
      if [[ -n $_conv_fresh ]]; then  # the user ran a command since the last key
        # the one fork, on this key only; inside bind -x the line being edited is not in the
        # history yet, so the last command run is -0 there (-1 is the one before it)
        _conv_last_command=$(HISTTIMEFORMAT='' builtin fc -ln -0 2>/dev/null)
        _conv_last_command=${_conv_last_command#"${_conv_last_command%%[![:space:]]*}"}
        _conv_fresh=""
      fi
      [[ -n $_conv_last_command ]] \
        && export CONV_LAST_COMMAND="$_conv_last_command" CONV_LAST_STATUS="$_conv_last_status"
    fi
    READLINE_LINE="$command '${READLINE_LINE//\'/$sq}'"
  fi
  READLINE_POINT=${#READLINE_LINE}
  _conv_keyed=1
}

# The command comes back on stdout and goes into READLINE_LINE as data:
# nothing in it is expanded or run. While it is asked, a line says so (as
# zsh's and fish's do); a failure prints conv's message; the line itself
# stays as typed, as it does on Ctrl-C.
_conv_command() {
  [[ -n ${READLINE_LINE//[[:space:]]/} ]] || return 0
  local out status saved
  saved=$(trap -p INT)
  trap : INT  # Ctrl-C stops conv, not readline (which would drop the line)
  printf '\n%s\n' "conv: asking for a command…" >&2
  out=$("$_conv_bin" cmd -q --shell bash -- "$READLINE_LINE" 2>&1)
  status=$?
  if [[ -n $saved ]]; then eval "$saved"; else trap - INT; fi
  if (( status == 0 )); then
    READLINE_LINE=$out
    READLINE_POINT=${#READLINE_LINE}
  else
    printf '%s\n' "${out:-conv cmd was stopped}" >&2
  fi
}

conv_bind_keys() {
  local map
  for map in emacs vi-insert; do
    bind -m "$map" -x '"\C-x\C-_f": _conv_stash follow'
    bind -m "$map" -x '"\C-x\C-_n": _conv_stash new'
    bind -m "$map" -x '"\C-x\C-_r": _conv_stash resume'
    [[ -z ${4-} ]] || bind -m "$map" "\"$4\": \"\C-x\C-_r\C-m\""  # first: another key set to it wins
    bind -m "$map" "\"$1\": \"\C-x\C-_f\C-m\""
    bind -m "$map" "\"$2\": \"\C-x\C-_n\C-m\""
    [[ -z ${3-} ]] || bind -m "$map" -x "\"$3\": _conv_command"
  done
}

if [[ ${PROMPT_COMMAND@a} == *a* ]]; then
  PROMPT_COMMAND=(_conv_prompt_update "${PROMPT_COMMAND[@]}")
else
  # shellcheck disable=SC2178,SC2128  # here PROMPT_COMMAND is a string, not the array of the branch above
  PROMPT_COMMAND="_conv_prompt_update${PROMPT_COMMAND:+;$PROMPT_COMMAND}"
fi

if [[ -z ${CONV_NO_BIND-} ]]; then
  conv_bind_keys "${CONV_FOLLOW_KEY:-\ef}" "${CONV_NEW_KEY:-\en}" "${CONV_COMMAND_KEY:-\ek}" "${CONV_RESUME_KEY:-\ej}"
fi

# Tab completion: conv runs only when TAB is pressed (conv __complete prints
# VALUE<TAB>DESCRIPTION lines; bash shows the values).
# The words are taken from the line itself, split at blanks only: bash's own
# COMP_WORDS are split at ':' too (COMP_WORDBREAKS), and -m loc:m<Tab> then
# offered files. bash replaces the current word from its last ':' on, so that
# much of each candidate is left out.
_conv_complete() {
  local line words cur colon=""
  COMPREPLY=()
  read -ra words <<< "${COMP_LINE:0:COMP_POINT}"
  [[ ${COMP_LINE:COMP_POINT-1:1} == [[:space:]] ]] && words+=("")
  cur=${words[-1]-}
  [[ $cur == *:* && $COMP_WORDBREAKS == *:* ]] && colon=${cur%"${cur##*:}"}
  while IFS= read -r line; do
    [[ -n $line ]] && COMPREPLY+=("${line%%$'\t'*}") && COMPREPLY[-1]=${COMPREPLY[-1]#"$colon"}
  done < <("$_conv_bin" __complete "${words[@]:1}" 2>/dev/null)
}
complete -o default -F _conv_complete conv
fi

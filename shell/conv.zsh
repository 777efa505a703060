# conv for zsh. Load it from ~/.zshrc with:  eval "$(conv init zsh)"
#
# Alt-F  sends the command line to this terminal's conversation as a follow-up
# Alt-N  starts a new conversation with it
# With an empty line, either key shows the current conversation's last exchange.
# Alt-K  replaces the line, a description ("find files over 100 MB"), by the
#        shell command it asks for, to read, edit and run yourself; press it
#        again on "make it recursive" to refine. conv never runs the command.
# Alt-J  searches every turn of every conversation as you type (the line typed
#        in); Enter makes the one chosen this terminal's conversation.
# CONV_PROMPT holds the prompt segment (conv:ID·TURNS); put ${CONV_PROMPT} in
# PROMPT or RPROMPT. Set CONV_NO_BIND=1 before loading to bind no keys, and
# bind the widgets conv-follow-up, conv-new-conversation, conv-command and conv-resume
# yourself; CONV_FOLLOW_KEY / CONV_NEW_KEY / CONV_COMMAND_KEY / CONV_RESUME_KEY change the keys. The line runs as `conv ask -c -- '<the line>'`,
# single-quoted: it reaches conv as one argument and is never evaluated.

# One guarded block, no top-level return: that would end an rc file sourced again.
if [[ -o interactive ]] && (( ! ${+_conv_loaded} )); then
typeset -g _conv_loaded=1
typeset -g _conv_bin=__CONV_BIN__
typeset -g _conv_sessions=__CONV_STATE__/sessions

zmodload -F zsh/datetime p:EPOCHSECONDS 2>/dev/null
# A name for this terminal, made without forking: each shell gets its own,
# so two terminals follow up two conversations.
export CONV_SESSION="z$$.$RANDOM.${EPOCHSECONDS:-0}"
typeset -g _conv_last_command="" _conv_last_status="" _conv_keyed=0
export CONV_PROMPT=""

# The prompt segment, from conv's state file, with builtins only (no fork).
# A file that does not hold what conv writes shows nothing.
_conv_prompt_update() {
  local last_status=$?
  if (( _conv_keyed )); then
    _conv_keyed=0
    unset CONV_LAST_COMMAND CONV_LAST_STATUS
  else
    _conv_last_status=$last_status
  fi
  CONV_PROMPT=""
  local file=$_conv_sessions/$CONV_SESSION line
  [[ -f $file && -r $file ]] || return 0
  line=$(<$file)  # zsh reads this without forking, in one call (read(1) goes a byte at a time)
  local -a fields=(${=line})
  local short=$fields[2] turns=$fields[3] expires=$fields[5]
  [[ -n $short && $short != *[^a-z0-9_-]* && -n $turns && $turns != *[^0-9]* \
     && -n $expires && $expires != *[^0-9]* && ${#expires} -lt 12 ]] || return 0
  (( expires > ${EPOCHSECONDS:-0} )) || return 0
  CONV_PROMPT="conv:${short//\%/%%}·${turns}"
}

# The command line the user ran last and its status (CONV_SHARE_LAST_COMMAND=1);
# conv's own lines from the keys are not theirs.
_conv_remember_command() {
  (( _conv_keyed )) || [[ ${CONV_SHARE_LAST_COMMAND-} != 1 ]] || _conv_last_command=$1
}

# The keys turn the line into the conv command that asks it, single-quoted by
# zsh itself (so no word in it is expanded, no alias applies) and run as if typed:
# the screen and history show the question asked, the answer prints below
# a clean prompt, and Ctrl-C behaves as for any command.
_conv_stash() {
  local command=conv
  [[ ${commands[conv]-} -ef $_conv_bin ]] || command=${(qq)_conv_bin}
  if [[ $1 == resume ]]; then  # the picker, the line typed into it: every turn of every conversation searched
    [[ -z ${BUFFER//[[:space:]]/} ]] && BUFFER="$command resume" || BUFFER="$command resume --pick -- ${(qq)BUFFER}"
  elif [[ -z ${BUFFER//[[:space:]]/} ]]; then
    BUFFER="$command show --last 2"
  else
    [[ $1 == follow ]] && command+=" ask -c --" || command+=" ask --"
    BUFFER="$command ${(qq)BUFFER}"
    if [[ ${CONV_SHARE_LAST_COMMAND-} == 1 && -n $_conv_last_command ]]; then
      export CONV_LAST_COMMAND=$_conv_last_command CONV_LAST_STATUS=$_conv_last_status
    fi
  fi
  _conv_keyed=1
  zle .accept-line
}
conv-follow-up() { _conv_stash follow }
conv-new-conversation() { _conv_stash new }
conv-resume() { _conv_stash resume }
zle -N conv-follow-up
zle -N conv-new-conversation
zle -N conv-resume

# The command comes back on stdout and goes into BUFFER as data: nothing in
# it is expanded or run. A failure shows conv's message under the line;
# the line itself stays as typed, as it does on Ctrl-C.
conv-command() {
  [[ -n ${BUFFER//[[:space:]]/} ]] || return 0
  setopt localoptions localtraps
  trap : INT  # Ctrl-C stops conv, not the line editor (which would drop the line)
  local out
  zle -M "conv: asking for a command…"
  zle -R
  if out=$("$_conv_bin" cmd -q --shell zsh -- "$BUFFER" 2>&1); then
    BUFFER=$out
    CURSOR=${#BUFFER}
    zle -M ""
  else
    zle -M "${out:-conv cmd was stopped}"
  fi
}
zle -N conv-command

autoload -Uz add-zsh-hook
add-zsh-hook precmd _conv_prompt_update
add-zsh-hook preexec _conv_remember_command

if [[ -z ${CONV_NO_BIND-} ]]; then
  for _conv_keymap in emacs viins; do
    bindkey -M $_conv_keymap "${CONV_RESUME_KEY:-\ej}" conv-resume  # first: another key set to it wins
    bindkey -M $_conv_keymap "${CONV_FOLLOW_KEY:-\ef}" conv-follow-up
    bindkey -M $_conv_keymap "${CONV_NEW_KEY:-\en}" conv-new-conversation
    bindkey -M $_conv_keymap "${CONV_COMMAND_KEY:-\ek}" conv-command
  done
  unset _conv_keymap
fi

# Tab completion: conv runs only when TAB is pressed (conv __complete prints
# VALUE<TAB>DESCRIPTION lines: commands, options, conversations with titles, models).
_conv() {
  local -a found
  local line
  for line in "${(@f)$("$_conv_bin" __complete "${(@)words[2,CURRENT]}" 2>/dev/null)}"; do
    [[ -n $line ]] || continue
    if [[ $line == *$'\t'* ]]; then
      found+=("${${line%%$'\t'*}//:/\\:}:${line#*$'\t'}")
    else
      found+=("${line//:/\\:}")
    fi
  done
  _describe -t conv conv found
}
# compinit may come after this plugin in ~/.zshrc: register at the first prompt then.
_conv_register_completion() {
  (( $+functions[compdef] )) || return 0
  compdef _conv conv
  add-zsh-hook -d precmd _conv_register_completion
}
add-zsh-hook precmd _conv_register_completion
_conv_register_completion
fi

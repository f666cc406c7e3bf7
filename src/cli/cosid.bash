# Bash completion for cosid: the commands, and the options of the command being typed. Installed
# as share/bash-completion/completions/cosid, which bash-completion loads on the first `cosid <TAB>`.
# The commands and options are the tool's own: `cosid help --options` lists every option of every
# command (COMMAND<TAB>--LONG<TAB>-S<TAB>VALUE), so a new command or flag completes without a
# change here.

_cosid() {
  local cur="${COMP_WORDS[COMP_CWORD]}"
  local prev=""
  ((COMP_CWORD > 0)) && prev="${COMP_WORDS[COMP_CWORD - 1]}"
  local tool="${COMP_WORDS[0]}"
  local specs
  specs="$("$tool" help --options 2>/dev/null)" || return 0
  # Fields split at \037, not at the tab: `read` merges a run of tabs (whitespace in IFS), which
  # would move an option's VALUE into the empty -S field of an option without a short name.
  specs="${specs//$'\t'/$'\037'}"

  # The command typed so far: one word, or two for a subcommand ("state show").
  local command="" word i
  local -a words=()
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="${COMP_WORDS[i]}"
    [[ $word == -* ]] && break
    words+=("$word")
  done
  local name line
  while IFS=$'\037' read -r name _; do
    if [[ ${#words[@]} -ge 2 && $name == "${words[0]} ${words[1]}" ]] ||
      [[ ${#words[@]} -ge 1 && $name == "${words[0]}" ]]; then
      command="$name"
    fi
  done <<<"$specs"

  if [[ -z $command ]]; then
    local -a names=()
    if ((${#words[@]} == 0)); then
      # The first word: every command's first word, and help.
      names=(help --help --version)
      while IFS=$'\037' read -r name _; do names+=("${name%% *}"); done <<<"$specs"
    else
      # The second word of a subcommand ("state <TAB>").
      while IFS=$'\037' read -r name _; do
        [[ $name == "${words[0]} "* ]] && names+=("${name#* }")
      done <<<"$specs"
    fi
    mapfile -t COMPREPLY < <(compgen -W "$(printf '%s\n' "${names[@]}" | sort -u)" -- "$cur")
    return 0
  fi

  # After an option that takes a value: a file for FILE, PATH and DIR; for a store (--store of
  # next, segment and store init) its kinds (after "file:" bash splits at the colon, and the
  # file names below follow); else nothing to offer.
  local long short value
  while IFS=$'\037' read -r name long short value; do
    [[ $name == "$command" && -n $value && ($prev == "$long" || $prev == "$short") ]] || continue
    case "$value" in
      FILE | PATH | DIR) mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
      STORE | "TYPE[:TARGET]")
        mapfile -t COMPREPLY < <(compgen -W "file: zookeeper: memory" -- "$cur")
        compopt -o nospace 2>/dev/null
        ;;
    esac
    return 0
  done <<<"$specs"

  if [[ $cur == -* ]]; then
    local -a options=()
    while IFS=$'\037' read -r name long short value; do
      [[ $name == "$command" ]] && options+=("$long")
    done <<<"$specs"
    mapfile -t COMPREPLY < <(compgen -W "${options[*]}" -- "$cur")
    return 0
  fi
  mapfile -t COMPREPLY < <(compgen -f -- "$cur")
}

complete -F _cosid cosid

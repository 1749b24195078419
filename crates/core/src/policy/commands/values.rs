//! What a command string gives a value, read with it: shell variables, positional
//! parameters and the output of a plain `echo` or `printf` (see [`Judge::variants`]).

use super::wildcards::Wildcards;
use super::*;
use std::cell::Cell;

/// How a word's variables are read: with a value for each of those the string
/// assigned ([`Judge::variants`]), `None` for each as written.
#[derive(Clone, Copy)]
pub(super) struct Reading<'v> {
    pub(super) values: Option<&'v Values>,
    /// Whether an unquoted value is split into fields (not in an assignment's value),
    /// and where: at whitespace and at these characters (the string's `IFS`).
    pub(super) split: Option<&'v str>,
    /// The bytes of values read into words so far, for the whole string.
    pub(super) bytes: Option<&'v std::cell::Cell<usize>>,
}

impl Reading<'_> {
    pub(super) const WRITTEN: Reading<'static> = Reading {
        values: None,
        split: None,
        bytes: None,
    };
}

/// The most bytes of values a string's words are read with, in all.
pub(super) const MAX_VALUE_BYTES: usize = 16 << 20;

/// One value for each shell variable a command's words are read with.
pub(super) type Values = std::collections::BTreeMap<String, String>;

/// The values known before the command runs that each name may hold.
pub(super) type Known = std::collections::BTreeMap<String, Vec<String>>;

/// What an assignment gives its variable, as written: the words of its value, each
/// split into fields by its unquoted expansions when `true` (an array's elements),
/// joined by [`FIELD`], and cut as `cut` says.
#[derive(Debug, Clone)]
pub(super) struct Given {
    pub(super) parts: Vec<(String, bool)>,
    pub(super) cut: Cut,
    /// Which of the fields the cut makes it gives.
    pub(super) take: Take,
}

impl Given {
    /// The value of `X=WORD`.
    pub(super) fn word(written: &str) -> Given {
        Given {
            parts: vec![(written.to_owned(), false)],
            cut: Cut::Whole,
            take: Take::All,
        }
    }

    /// All the words of `parts`, joined as fields.
    fn all(parts: Vec<(String, bool)>) -> Given {
        Given {
            parts,
            cut: Cut::Whole,
            take: Take::All,
        }
    }
}

/// Which of the fields of a value cut into an array's elements an assignment gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Take {
    /// All of them, as one value (all the elements).
    All,
    /// Each, as a value of its own (any element).
    Each,
    /// The first (the element at `0`).
    First,
}

/// How the value an assignment makes is cut into the fields of an array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Cut {
    /// As it is.
    Whole,
    /// At whitespace and the string's `IFS` (`read -a NAME <<< WORD`).
    Fields,
    /// At each newline, the last one dropped (`mapfile -t NAME <<< WORD`).
    Lines,
}

/// The name the elements of the array `name` are known by together ([`variable`]).
pub(super) fn all(name: &str) -> String {
    format!("{name}[@]")
}

/// The name that stands for any element of the array `name`, read where its index
/// is not a plain integer ([`variable`]).
pub(super) fn any(name: &str) -> String {
    format!("{name}[]")
}

/// The name an element of the array `name` is known by at the index written
/// `index`: the array's own for `0` (`$A` is `${A[0]}`), `A[N]` for another plain
/// integer, [`any`] for the others (a key, or arithmetic).
pub(super) fn element(name: &str, index: &str) -> String {
    match index.trim().parse::<i64>() {
        Ok(0) => name.to_owned(),
        Ok(n) if n > 0 => format!("{name}[{n}]"),
        _ => any(name),
    }
}

/// The values `values` knows of what is known as `name`: an element of an array
/// whose index has none may hold the values of any ([`any`]).
pub(super) fn lookup<'k>(values: &'k Known, name: &str) -> Option<&'k Vec<String>> {
    values.get(name).or_else(|| {
        let array = name.strip_suffix(']')?.split_once('[')?.0;
        values.get(&any(array))
    })
}

/// The expansion that reads what is known as the element `key` of `name`.
fn element_expansion(name: &str, key: &str) -> String {
    match key.strip_prefix(name) {
        Some("") => format!("${{{name}}}"),
        Some("[]") => format!("${{{name}[_]}}"),
        _ => format!("${{{key}}}"),
    }
}

/// Adds `value` to `known` if it is not there: whether it added it; a violation
/// past [`MAX_VALUES`].
fn add(known: &mut Vec<String>, value: String) -> Result<bool, CommandVerdict> {
    if known.contains(&value) {
        return Ok(false);
    }
    if known.len() == MAX_VALUES {
        return Err(CommandVerdict::Unparseable(VALUES_SPENT.to_owned()));
    }
    known.push(value);
    Ok(true)
}

/// Where an unquoted variable's value splits a word into fields, in the text of an
/// [`Analysed`] read with values (no value of a shell variable holds a NUL).
pub(super) const FIELD: char = '\0';

/// The most assignments of shell variables a string's values are read from.
pub(super) const MAX_ASSIGNED: usize = 1_024;

/// The most values known before the command runs of one variable.
pub(super) const MAX_VALUES: usize = 1_024;

/// The most readings of words with values, in all the string.
pub(super) const MAX_READINGS: usize = 16_384;

/// The most times the string's assignments are read again with the values found.
pub(super) const MAX_ROUNDS: usize = 64;

/// Why a string whose variables take too many values is not judged (a violation).
pub(super) const VALUES_SPENT: &str = "its variables take more values than can be judged (1024 assignments, 1024 values of one, 16384 readings of words with them or 16 MiB of their text, or 64 rounds of reading its assignments)";

impl Judge<'_> {
    /// Notes the values `words` give their variables for when unset or set, and what
    /// their command substitutions print, where that is known ([`Judge::output`]).
    pub(super) fn note_values(&mut self, words: &[Analysed]) -> Step {
        if self.assigned.is_none() {
            return Ok(());
        }
        for word in words {
            for (name, value) in &word.defaults {
                self.assigns(name, value)?;
            }
            for (written, script) in &word.outputs {
                for output in self.output(script) {
                    self.knows(written, output)?;
                }
            }
        }
        Ok(())
    }

    /// Notes that what is known as `name` may hold `value`, known before the
    /// command runs.
    pub(super) fn knows(&mut self, name: &str, value: String) -> Step {
        add(self.values.entry(name.to_owned()).or_default(), value).map(drop)
    }

    /// Notes that the string gives `name` the value of `word`: known when literal,
    /// read as an assignment of it as written otherwise.
    pub(super) fn gives(&mut self, name: &str, word: &Analysed) -> Step {
        match (self.assigned.is_some(), word.literal) {
            (false, _) => Ok(()),
            (true, true) => self.knows(name, word.text.clone()),
            (true, false) => self.assigns(name, &word.written),
        }
    }

    /// What `script`, a command substitution, may print, when it is one `echo` or
    /// `printf` of words known before it runs ([`printed`]), or a `cat FILE` or
    /// `< FILE` of a file the string writes ([`Judge::file_texts`]). The newlines at
    /// its end are cut, as the shell cuts them.
    pub(super) fn output(&self, script: &str) -> Vec<String> {
        let cut = |texts: Vec<String>| -> Vec<String> {
            (texts.into_iter())
                .map(|text| text.trim_end_matches('\n').to_owned())
                .collect()
        };
        let plain = script.trim();
        let special = |text: &str| {
            text.len() > 4096
                || text.contains(['$', '`', '(', ')', ';', '|', '&', '<', '>', '\n', '#'])
        };
        // `$(< FILE)`.
        if let Some(file) = plain.strip_prefix('<') {
            return match special(file) {
                true => Vec::new(),
                false => match self.analyse(file.trim()) {
                    Ok(file) if file.known() => cut(self.file_texts(&file.text)),
                    _ => Vec::new(),
                },
            };
        }
        self.output_words(script)
            .map(|texts| match &texts[..] {
                [cat, file] if cat == "cat" => cut(self.file_texts(file)),
                _ => {
                    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
                    cut(printed(&texts).into_iter().collect())
                }
            })
            .unwrap_or_default()
    }

    /// The words of `script`, when it is one plain `echo`, `printf` or `cat` of
    /// words known before it runs.
    fn output_words(&self, script: &str) -> Option<Vec<String>> {
        // Only a plain command is read: nothing nested, nothing run after it.
        let plain = script.trim_start();
        if !(plain.starts_with("echo") || plain.starts_with("printf") || plain.starts_with("cat"))
            || plain.len() > 4096
            || plain.contains(['$', '`', '(', ')', ';', '|', '&', '<', '>', '\n', '#'])
        {
            return None;
        }
        let tokens = tokens(script, &self.options).ok()?;
        let program = parse_tokens(&tokens, &self.options).ok()?;
        let [complete] = &program.complete_commands[..] else {
            return None;
        };
        let [ast::CompoundListItem(and_or, _)] = &complete.0[..] else {
            return None;
        };
        let ([ast::Command::Simple(simple)], true) =
            (&and_or.first.seq[..], and_or.additional.is_empty())
        else {
            return None;
        };
        if simple.prefix.is_some() {
            return None;
        }
        let mut words = vec![self.analyse(&simple.word_or_name.as_ref()?.value).ok()?];
        for item in simple.suffix.iter().flat_map(|suffix| suffix.0.iter()) {
            match item {
                ast::CommandPrefixOrSuffixItem::Word(word) => {
                    words.push(self.analyse(&word.value).ok()?);
                }
                _ => return None,
            }
        }
        let words = self.braces_expanded(words).ok()?;
        if !words.iter().all(Analysed::known) {
            return None;
        }
        Some(words.into_iter().map(|word| word.text).collect())
    }

    /// Notes that the string gives the positional parameters `args`: each by its
    /// number, and all of them together as `@` (`$*` too) when each is known.
    pub(super) fn positional(&mut self, args: &[Analysed]) -> Step {
        if self.assigned.is_none() || args.is_empty() {
            return Ok(());
        }
        for (at, arg) in args.iter().enumerate() {
            self.gives(&(at + 1).to_string(), arg)?;
        }
        if args.iter().all(|arg| arg.literal) {
            let all: Vec<&str> = args.iter().map(|arg| arg.text.as_str()).collect();
            let all = all.join(&FIELD.to_string());
            self.knows("@", all)?;
        }
        Ok(())
    }

    /// Notes that the string assigns `value` (as written) to the variable `name`, and
    /// the values it may give it, read with those known so far (`X=-; X=${X}r`
    /// gives `X` the values `-` and `-r`).
    pub(super) fn assigns(&mut self, name: &str, value: &str) -> Step {
        self.assigns_given(name, Given::word(value))
    }

    /// Notes that the string gives the variable `name` what `given` makes, and the
    /// values it may give it, read with those known so far.
    pub(super) fn assigns_given(&mut self, name: &str, given: Given) -> Step {
        match &self.assigned {
            None => return Ok(()),
            Some(assigned) if assigned.len() == MAX_ASSIGNED => {
                return Err(CommandVerdict::Unparseable(VALUES_SPENT.to_owned()));
            }
            Some(_) => {}
        }
        let mut analysed = Vec::with_capacity(given.parts.len());
        for (written, _) in &given.parts {
            analysed.push(self.analyse(written)?);
        }
        self.note_values(&analysed)?;
        let mut values = std::mem::take(&mut self.values);
        let step = self.evaluate(name, &given, &analysed, &mut values, None);
        self.values = values;
        if let Some(assigned) = &mut self.assigned {
            assigned.push((name.to_owned(), given));
        }
        step.map(drop)
    }

    /// Notes what the shell assignment `assignment` gives: a variable its value
    /// (`X=W`, `X+=W`), an array its elements (`A=(W...)`, `A+=(W...)`, `A=([K]=W)`),
    /// or one element (`A[K]=W`).
    pub(super) fn assignment(&mut self, assignment: &ast::Assignment) -> Step {
        if self.assigned.is_none() {
            return Ok(());
        }
        let append = assignment.append;
        match (&assignment.name, &assignment.value) {
            (ast::AssignmentName::VariableName(name), ast::AssignmentValue::Scalar(value)) => {
                match append {
                    true => self.assigns(name, &format!("${{{name}}}{}", value.value)),
                    false => self.assigns(name, &value.value),
                }
            }
            (
                ast::AssignmentName::ArrayElementName(name, index),
                ast::AssignmentValue::Scalar(value),
            ) => {
                let key = element(name, index);
                let value = match append {
                    true => format!("{}{}", element_expansion(name, &key), value.value),
                    false => value.value.clone(),
                };
                self.assigns(&key, &value)?;
                if key != any(name) {
                    self.assigns(&any(name), &value)?;
                }
                // All the elements: this one alone, or after those known.
                let own = (format!("\"${{{}}}\"", all(name)), true);
                let value = (value, false);
                self.assigns_given(&all(name), Given::all(vec![value.clone()]))?;
                self.assigns_given(&all(name), Given::all(vec![own, value]))
            }
            (name, ast::AssignmentValue::Array(elements)) => {
                let (ast::AssignmentName::VariableName(name)
                | ast::AssignmentName::ArrayElementName(name, _)) = name;
                self.array(name, elements, append)
            }
        }
    }

    /// Notes what `NAME=(ELEMENTS)` (or `NAME+=(ELEMENTS)`, `append`) gives: each
    /// element at its index (split into fields unless given a key, as the shell
    /// splits it), and all of them together.
    fn array(
        &mut self,
        name: &str,
        elements: &[(Option<ast::Word>, ast::Word)],
        append: bool,
    ) -> Step {
        let mut parts = Vec::with_capacity(elements.len());
        // Appended elements follow those there: their indices are not known.
        let mut index = (!append).then_some(0i64);
        for (key, word) in elements {
            if let Some(key) = key {
                index = key.value.trim().parse().ok();
            }
            let key_of = match index {
                Some(index) => element(name, &index.to_string()),
                None => any(name),
            };
            let analysed = self.analyse(&word.value)?;
            self.gives(&key_of, &analysed)?;
            if key_of != any(name) {
                self.gives(&any(name), &analysed)?;
            }
            parts.push((word.value.clone(), key.is_none()));
            index = index.and_then(|index| index.checked_add(1));
        }
        if append {
            let mut with = vec![(format!("\"${{{}}}\"", all(name)), true)];
            with.extend(parts.iter().cloned());
            self.assigns_given(&all(name), Given::all(with))?;
        }
        self.assigns_given(&all(name), Given::all(parts))
    }

    /// Notes what `read -a NAME <<< WORD` (`Cut::Fields`) or `mapfile NAME <<< WORD`
    /// (`Cut::Lines`) gives the array `name`: `word`'s value cut into its elements.
    pub(super) fn array_read(&mut self, name: &str, word: &str, cut: Cut) -> Step {
        for (key, take) in [
            (all(name), Take::All),
            (any(name), Take::Each),
            (name.to_owned(), Take::First),
        ] {
            let parts = vec![(word.to_owned(), false)];
            self.assigns_given(&key, Given { parts, cut, take })?;
        }
        Ok(())
    }

    /// Adds to `values` what the assignment of `given` (its parts `analysed`) to
    /// `name` may give it, read with `values` (but with `own`'s values of `name`
    /// itself, when given): whether it added any.
    pub(super) fn evaluate(
        &self,
        name: &str,
        given: &Given,
        analysed: &[Analysed],
        values: &mut Known,
        own: Option<&Known>,
    ) -> Result<bool, CommandVerdict> {
        let spent = || CommandVerdict::Unparseable(VALUES_SPENT.to_owned());
        let ifs = self.ifs();
        let mut parts = Vec::with_capacity(analysed.len());
        for ((written, split), analysed) in given.parts.iter().zip(analysed) {
            let split = split.then_some(ifs.as_str());
            parts.push(self.part(name, written, split, analysed, values, own)?);
        }
        self.values_spent()?;
        // Each way of taking one value of each part, joined as fields.
        let mut found = vec![String::new()];
        for (at, part) in parts.iter().enumerate() {
            let heads: usize = found.iter().map(String::len).sum();
            let tails: usize = part.iter().map(String::len).sum();
            let bytes = (heads.saturating_mul(part.len()))
                .saturating_add(tails.saturating_mul(found.len()))
                .saturating_add(found.len().saturating_mul(part.len()));
            if found.len().saturating_mul(part.len()) > MAX_VALUES
                || self.value_bytes.get().saturating_add(bytes) > MAX_VALUE_BYTES
            {
                return Err(spent());
            }
            self.value_bytes.set(self.value_bytes.get() + bytes);
            found = (found.iter())
                .flat_map(|head| {
                    part.iter().map(move |value| match at {
                        0 => value.clone(),
                        _ => format!("{head}{FIELD}{value}"),
                    })
                })
                .collect();
        }
        let known = values.entry(name.to_owned()).or_default();
        let mut more = false;
        for value in found {
            let value = match given.cut {
                Cut::Whole => value,
                Cut::Fields => (value.chars())
                    .map(
                        |c| match matches!(c, ' ' | '\t' | '\n') || ifs.contains(c) {
                            true => FIELD,
                            false => c,
                        },
                    )
                    .collect(),
                Cut::Lines => value
                    .strip_suffix('\n')
                    .unwrap_or(&value)
                    .replace('\n', &FIELD.to_string()),
            };
            let mut fields = value.split(FIELD).filter(|field| !field.is_empty());
            match given.take {
                Take::All => more |= add(known, value.clone())?,
                Take::First => {
                    if let Some(first) = fields.next() {
                        more |= add(known, first.to_owned())?;
                    }
                }
                Take::Each => {
                    for field in fields {
                        more |= add(known, field.to_owned())?;
                    }
                }
            }
        }
        Ok(more)
    }

    /// The values the word `written` (`analysed`), a part of what is assigned to
    /// `name`, may have, read with `values` (see [`Judge::evaluate`]) and split
    /// where `split` says.
    fn part(
        &self,
        name: &str,
        written: &str,
        split: Option<&str>,
        analysed: &Analysed,
        values: &Known,
        own: Option<&Known>,
    ) -> Result<Vec<String>, CommandVerdict> {
        let spent = || CommandVerdict::Unparseable(VALUES_SPENT.to_owned());
        let mut found = Vec::new();
        if analysed.literal {
            found.push(analysed.text.clone());
        } else if analysed
            .parameters
            .iter()
            .any(|p| lookup(values, p).is_some())
        {
            let swapped;
            let read = match own {
                Some(own) if analysed.parameters.iter().any(|p| p == name) => {
                    let mut read = values.clone();
                    read.remove(name);
                    if let Some(known) = own.get(name) {
                        read.insert(name.to_owned(), known.clone());
                    }
                    swapped = read;
                    &swapped
                }
                _ => values,
            };
            for reading in self
                .readings(&analysed.parameters, read)
                .ok_or_else(spent)?
            {
                let analysed = self.analyse_reading(written, self.reading(&reading, split))?;
                if analysed.literal && !found.contains(&analysed.text) {
                    found.push(analysed.text);
                }
            }
        }
        Ok(found)
    }

    /// The variables `words` expand that the string assigns values to, once the
    /// string is read whole (none before).
    pub(super) fn assigned_names(&self, words: &[Analysed]) -> Vec<String> {
        if self.assigned.is_some() {
            return Vec::new();
        }
        let mut names: Vec<String> = Vec::new();
        for name in words.iter().flat_map(|word| &word.parameters) {
            if lookup(&self.values, name).is_some() && !names.contains(name) {
                names.push(name.clone());
            }
        }
        names
    }

    /// The characters the string's `IFS` may hold: an unquoted value is split at
    /// them, besides whitespace.
    pub(super) fn ifs(&self) -> String {
        (self.values.get("IFS").into_iter().flatten())
            .flat_map(|value| value.chars())
            .collect()
    }

    /// Each way of giving `names` (those of them `values` has, each once) one of their
    /// values, counted against the string's [`MAX_READINGS`]; `None` past them.
    pub(super) fn readings(&self, names: &[String], values: &Known) -> Option<Vec<Values>> {
        let made = readings(names, values, self.readings_left.get())?;
        self.readings_left
            .set(self.readings_left.get() - made.len());
        Some(made)
    }

    /// How the words of a command are read with `values`, split where `split` says.
    pub(super) fn reading<'v>(&'v self, values: &'v Values, split: Option<&'v str>) -> Reading<'v> {
        Reading {
            values: Some(values),
            split,
            bytes: Some(&self.value_bytes),
        }
    }

    /// A violation once the values read into words are more than
    /// [`MAX_VALUE_BYTES`].
    pub(super) fn values_spent(&self) -> Step {
        match self.value_bytes.get() > MAX_VALUE_BYTES {
            true => Err(CommandVerdict::Unparseable(VALUES_SPENT.to_owned())),
            false => Ok(()),
        }
    }

    /// The values known before the command runs that each variable of `assigned`
    /// may hold, once the string is read whole: those found while reading it, and
    /// those its assignments give with them until they give no more (a loop assigns
    /// after the command it runs again: `while :; do rm $B /; B=$A; A=-rf; done`).
    /// An assignment of a variable's own value (`X=${X}f`) is read again with the
    /// values found while reading only, so that it does not grow without end.
    pub(super) fn resolved(&self, assigned: &[(String, Given)]) -> Result<Known, CommandVerdict> {
        let first = &self.values;
        let mut values = first.clone();
        // A literal value was found while reading; the others are read again, each
        // analysed once.
        let mut read = Vec::new();
        for (name, given) in assigned {
            let mut analysed = Vec::with_capacity(given.parts.len());
            for (written, _) in &given.parts {
                analysed.push(self.analyse(written)?);
            }
            if !analysed.iter().all(|part| part.literal) {
                read.push((name, given, analysed));
            }
        }
        for _ in 0..MAX_ROUNDS {
            let mut more = false;
            for (name, given, analysed) in &read {
                more |= self.evaluate(name, given, analysed, &mut values, Some(first))?;
            }
            if !more {
                values.retain(|_, known| !known.is_empty());
                return Ok(values);
            }
        }
        Err(CommandVerdict::Unparseable(VALUES_SPENT.to_owned()))
    }

    /// Judges `words` (the command's words before braces) again with each value the
    /// variables they expand may hold: `X=-rf; rm $X /` runs `rm -rf /`.
    pub(super) fn variants(&mut self, words: &[Analysed], at: At<'_>) -> Step {
        if self.assigned_names(words).is_empty() {
            return Ok(());
        }
        let shown_here = shown(words);
        let at = At {
            within: at.within.or(Some(&shown_here)),
            ..at
        };
        self.with_values(words, |judge, read| {
            // What the command changes (its directory, aliases) is the written one's.
            let (place, aliases) = (judge.place.clone(), judge.aliases.clone());
            judge.variant = true;
            let step = judge.judge(&read, at, true);
            judge.variant = false;
            (judge.place, judge.aliases) = (place, aliases);
            step
        })
    }

    /// Gives `each` the words `words` make read with each value the variables they
    /// expand may hold (each word with variables read again from its text as
    /// written, once for the words its braces made), split into fields and their
    /// braces expanded; nothing when they expand none the string gives a value, or
    /// before the string is read whole.
    pub(super) fn with_values(
        &mut self,
        words: &[Analysed],
        mut each: impl FnMut(&mut Self, Vec<Analysed>) -> Step,
    ) -> Step {
        let names = self.assigned_names(words);
        if names.is_empty() {
            return Ok(());
        }
        let (spent, ifs) = (
            || CommandVerdict::Unparseable(VALUES_SPENT.to_owned()),
            self.ifs(),
        );
        for values in self.readings(&names, &self.values).ok_or_else(spent)? {
            let mut read = Vec::with_capacity(words.len());
            for word in words.iter().filter(|word| word.made != Made::Later) {
                read.push(match word.parameters.is_empty() {
                    true => word.clone(),
                    false => {
                        self.analyse_reading(&word.written, self.reading(&values, Some(&ifs)))?
                    }
                });
            }
            self.values_spent()?;
            let read = fields(self.braces_expanded(read)?);
            each(self, read)?;
        }
        Ok(())
    }
}

/// What the command of the known words `texts` prints, when it is an `echo` of its
/// words joined by spaces (with `-n` no newline after them, with `-e` their escapes
/// read as bash reads them, up to a `\c`), or a `printf` of a format whose
/// conversions are `%s`, `%b` and `%%` (its escapes read, the format used again
/// while words are left).
pub(super) fn printed(texts: &[&str]) -> Option<String> {
    Some(match texts[..] {
        ["echo", ref args @ ..] => {
            let options = (args.iter())
                .take_while(|arg| {
                    arg.len() > 1
                        && arg.starts_with('-')
                        && arg[1..].chars().all(|c| matches!(c, 'n' | 'e' | 'E'))
                })
                .count();
            let (mut newline, mut escapes) = (true, false);
            for c in args[..options]
                .iter()
                .flat_map(|option| option[1..].chars())
            {
                match c {
                    'n' => newline = false,
                    'e' => escapes = true,
                    _ => escapes = false,
                }
            }
            let text = args[options..].join(" ");
            let mut text = match escapes && text.contains('\\') {
                true => match text.find("\\c") {
                    // `\c` ends what it prints, the newline too.
                    Some(at) => return ansi_c(&text[..at]),
                    None => ansi_c(&text)?,
                },
                false => text,
            };
            if newline {
                text.push('\n');
            }
            text
        }
        ["printf", ref rest @ ..] => {
            let (format, args) = match rest {
                ["--", format, args @ ..] => (*format, args),
                [format, args @ ..] if !format.starts_with('-') || *format == "-" => {
                    (*format, args)
                }
                _ => return None,
            };
            printf(format, args)?
        }
        _ => return None,
    })
}

/// What `printf FORMAT ARGS` prints when its conversions are `%s`, `%b` (an
/// argument's escapes read) and `%%`: the format's escapes read as bash reads them,
/// the format used again while arguments are left, a missing one empty.
fn printf(format: &str, args: &[&str]) -> Option<String> {
    // The format's pieces: text, and `%s` (`false`) or `%b` (`true`).
    let mut pieces: Vec<Result<String, bool>> = Vec::new();
    let mut text = String::new();
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            text.push(c);
            continue;
        }
        match chars.next()? {
            '%' => text.push_str("%%"),
            conversion @ ('s' | 'b') => {
                pieces.push(Ok(std::mem::take(&mut text)));
                pieces.push(Err(conversion == 'b'));
            }
            _ => return None,
        }
    }
    pieces.push(Ok(text));
    let mut out = String::new();
    let mut next = 0;
    loop {
        for piece in &pieces {
            match piece {
                Ok(text) => out.push_str(&ansi_c(text)?.replace("%%", "%")),
                Err(escapes) => {
                    let arg = args.get(next).copied().unwrap_or("");
                    next += 1;
                    match escapes {
                        true => out.push_str(&ansi_c(arg)?),
                        false => out.push_str(arg),
                    }
                }
            }
        }
        if next >= args.len() || pieces.iter().all(Result::is_ok) {
            return Some(out);
        }
    }
}

/// Each way of giving `names` (those of them `values` has, each once) one of their
/// values; `None` past `most` ways.
pub(super) fn readings(names: &[String], values: &Known, most: usize) -> Option<Vec<Values>> {
    let mut out = vec![Values::new()];
    for name in names {
        let Some(known) = lookup(values, name) else {
            continue;
        };
        if out[0].contains_key(name) {
            continue;
        }
        if out.len() * known.len() > most {
            return None;
        }
        out = (out.iter())
            .flat_map(|reading| {
                known.iter().map(move |value| {
                    let mut reading = reading.clone();
                    reading.insert(name.clone(), value.clone());
                    reading
                })
            })
            .collect();
    }
    Some(out)
}

/// `words` with each word split into the fields its variables' unquoted values
/// make ([`FIELD`]), an empty one dropped as the shell drops it.
pub(super) fn fields(words: Vec<Analysed>) -> Vec<Analysed> {
    if !words.iter().any(|word| word.text.contains(FIELD)) {
        return words;
    }
    let mut out = Vec::with_capacity(words.len());
    for mut word in words {
        if !word.text.contains(FIELD) {
            out.push(word);
            continue;
        }
        let (mut scripts, mut runs) = (
            std::mem::take(&mut word.scripts),
            std::mem::take(&mut word.words),
        );
        let parts = (word.text.split(FIELD))
            .zip(word.path.split(FIELD))
            .zip(word.braces.split(FIELD));
        for ((text, path), braces) in parts {
            if text.is_empty() {
                continue;
            }
            out.push(Analysed {
                text: text.to_owned(),
                path: path.to_owned(),
                glob: has_unquoted_glob(braces),
                braces: braces.to_owned(),
                written: word.written.clone(),
                literal: word.literal,
                scripts: std::mem::take(&mut scripts),
                words: std::mem::take(&mut runs),
                made: word.made,
                parameters: word.parameters.clone(),
                defaults: Vec::new(),
                outputs: Vec::new(),
                written_text: word.written_text,
            });
        }
    }
    out
}

/// Notes the variable `expr` expands if it is a plain `$NAME` or `${NAME}`, and adds
/// to `out` the value `reading` gives it, if any: whether it did (split into fields
/// where `reading` says, a wildcard in it then unquoted).
pub(super) fn substituted(
    expr: &ParameterExpr,
    reading: Reading<'_>,
    quoted: bool,
    out: &mut Analysed,
) -> bool {
    let (parameter, default) = match expr {
        ParameterExpr::Parameter {
            parameter,
            indirect: false,
        } => (parameter, None),
        ParameterExpr::UseDefaultValues {
            parameter,
            indirect: false,
            default_value,
            ..
        }
        | ParameterExpr::AssignDefaultValues {
            parameter,
            indirect: false,
            default_value,
            ..
        } => (parameter, default_value.as_ref()),
        ParameterExpr::UseAlternativeValue {
            parameter,
            indirect: false,
            alternative_value,
            ..
        } => (parameter, alternative_value.as_ref()),
        ParameterExpr::ParameterLength {
            parameter,
            indirect: false,
        }
        | ParameterExpr::RemoveSmallestSuffixPattern {
            parameter,
            indirect: false,
            ..
        }
        | ParameterExpr::RemoveLargestSuffixPattern {
            parameter,
            indirect: false,
            ..
        }
        | ParameterExpr::RemoveSmallestPrefixPattern {
            parameter,
            indirect: false,
            ..
        }
        | ParameterExpr::RemoveLargestPrefixPattern {
            parameter,
            indirect: false,
            ..
        }
        | ParameterExpr::Substring {
            parameter,
            indirect: false,
            ..
        }
        | ParameterExpr::UppercaseFirstChar {
            parameter,
            indirect: false,
            ..
        }
        | ParameterExpr::UppercasePattern {
            parameter,
            indirect: false,
            ..
        }
        | ParameterExpr::LowercaseFirstChar {
            parameter,
            indirect: false,
            ..
        }
        | ParameterExpr::LowercasePattern {
            parameter,
            indirect: false,
            ..
        }
        | ParameterExpr::ReplaceSubstring {
            parameter,
            indirect: false,
            ..
        }
        | ParameterExpr::Transform {
            parameter,
            indirect: false,
            ..
        } => {
            // What it makes of a known value, when that can be told.
            let Some(name) = variable(parameter) else {
                return false;
            };
            if !out.parameters.contains(&name) {
                out.parameters.push(name.clone());
            }
            let Some(value) = reading.values.and_then(|values| values.get(&name)) else {
                return false;
            };
            let unbounded = Cell::new(0);
            let work = reading.bytes.unwrap_or(&unbounded);
            let Some(value) = operated(expr, &name, value, work) else {
                return false;
            };
            return push_value(&value, joined(parameter), reading, quoted, out);
        }
        _ => return false,
    };
    let Some(name) = variable(parameter) else {
        return false;
    };
    if let Some(default) = default {
        let default = (name.clone(), default.clone());
        if !out.defaults.contains(&default) {
            out.defaults.push(default);
        }
    }
    if !out.parameters.contains(&name) {
        out.parameters.push(name.clone());
    }
    match reading.values.and_then(|values| values.get(&name)) {
        Some(value) => push_value(value, joined(parameter), reading, quoted, out),
        None => false,
    }
}

/// Whether `parameter` joins the fields of its value into one word when quoted
/// (`"$*"`, `"${A[*]}"`).
fn joined(parameter: &Parameter) -> bool {
    matches!(
        parameter,
        Parameter::Special(SpecialParameter::AllPositionalParameters { concatenate: true })
            | Parameter::NamedWithAllIndices {
                concatenate: true,
                ..
            }
    )
}

/// Adds to `out` the value `reading` gives what is known as `name` (a variable, or a
/// command substitution as written), if any: whether it did (split into fields
/// where `reading` says, a wildcard in it then unquoted).
pub(super) fn substitute(
    name: &str,
    reading: Reading<'_>,
    quoted: bool,
    out: &mut Analysed,
) -> bool {
    match reading.values.and_then(|values| values.get(name)) {
        Some(value) => push_value(value, false, reading, quoted, out),
        None => false,
    }
}

/// What an expansion that changes a value makes of `value`, the value of what is
/// known as `name`, when its pattern is read ([`Wildcards::parse`]), its
/// replacement plain text and its numbers plain integers: `${#X}`, `${X%p}`,
/// `${X%%p}`, `${X#p}`, `${X##p}`, `${X:offset}`, `${X:offset:length}`, `${X^p}`,
/// `${X^^p}`, `${X,p}`, `${X,,p}` (`p` may be none), `${X/p/r}`, `${X//p/r}`,
/// `${X/#p/r}`, `${X/%p/r}`, `${X@U}`, `${X@L}`, `${X@u}`, `${X@E}`, `${X@Q}` and
/// `${X@P}` (of text without `\`, `$`, a backquote or `!`).
/// Of all the positional parameters or an array's elements, a length counts them,
/// an offset and length take some of them (`$0` not known), and the others change
/// each. `work` is charged for the pattern's matching.
pub(super) fn operated(
    expr: &ParameterExpr,
    name: &str,
    value: &str,
    work: &Cell<usize>,
) -> Option<String> {
    if name == "@" || name.ends_with("[@]") {
        let mut fields: Vec<&str> = match value.is_empty() {
            true => Vec::new(),
            false => value.split(FIELD).collect(),
        };
        return match expr {
            ParameterExpr::ParameterLength { .. } => Some(fields.len().to_string()),
            ParameterExpr::Substring { offset, length, .. } => {
                // `${@:1}` starts at `$1`: `$0` is not known.
                let from = usize::from(name == "@");
                let count = (fields.len() + from) as i64;
                let (start, end) =
                    slice(count, &offset.value, length.as_ref().map(|l| &l.value[..]))?;
                if (start as usize) < from {
                    return None;
                }
                fields = fields[start as usize - from..end as usize - from].to_vec();
                Some(fields.join(&FIELD.to_string()))
            }
            _ => {
                let mut out = Vec::with_capacity(fields.len());
                for field in fields {
                    out.push(operated(expr, "", field, work)?);
                }
                Some(out.join(&FIELD.to_string()))
            }
        };
    }
    fn plain(text: &str) -> bool {
        !text.chars().any(|c| "*?[]\\$`'\"(){}!&|;<>".contains(c))
    }
    let chars: Vec<char> = value.chars().collect();
    // The lengths of the shortest and longest start (or end) of `chars[from..]`
    // that `pattern` matches, its work charged to the string's bytes of values.
    let matched = |pattern: &Wildcards, from: usize, from_end: bool| {
        pattern.matched(&chars[from..], from_end, work, MAX_VALUE_BYTES)
    };
    // Whether `pattern` matches the character `c`.
    let one = |pattern: &Wildcards, c: char| {
        Some(pattern.matched(&[c], false, work, MAX_VALUE_BYTES)?.1 == Some(1))
    };
    let taken = |from: usize, to: usize| chars[from..to].iter().collect::<String>();
    Some(match expr {
        ParameterExpr::ParameterLength { .. } => chars.len().to_string(),
        ParameterExpr::RemoveSmallestSuffixPattern { pattern: p, .. }
        | ParameterExpr::RemoveLargestSuffixPattern { pattern: p, .. }
        | ParameterExpr::RemoveSmallestPrefixPattern { pattern: p, .. }
        | ParameterExpr::RemoveLargestPrefixPattern { pattern: p, .. } => {
            let pattern = Wildcards::parse(p.as_deref().unwrap_or(""))?;
            let (suffix, smallest) = match expr {
                ParameterExpr::RemoveSmallestSuffixPattern { .. } => (true, true),
                ParameterExpr::RemoveLargestSuffixPattern { .. } => (true, false),
                ParameterExpr::RemoveSmallestPrefixPattern { .. } => (false, true),
                _ => (false, false),
            };
            let (shortest, longest) = matched(&pattern, 0, suffix)?;
            match (if smallest { shortest } else { longest }, suffix) {
                (None, _) => value.to_owned(),
                (Some(cut), true) => taken(0, chars.len() - cut),
                (Some(cut), false) => taken(cut, chars.len()),
            }
        }
        ParameterExpr::Substring { offset, length, .. } => {
            let count = chars.len() as i64;
            let (start, end) = slice(count, &offset.value, length.as_ref().map(|l| &l.value[..]))?;
            chars[start as usize..end as usize].iter().collect()
        }
        // Each character the pattern matches (any, without one), the first only
        // with `^` and `,`.
        ParameterExpr::UppercaseFirstChar { pattern: p, .. }
        | ParameterExpr::LowercaseFirstChar { pattern: p, .. }
        | ParameterExpr::UppercasePattern { pattern: p, .. }
        | ParameterExpr::LowercasePattern { pattern: p, .. } => {
            let pattern = match p.as_deref().unwrap_or("") {
                "" => None,
                p => Some(Wildcards::parse(p)?),
            };
            let upper = matches!(
                expr,
                ParameterExpr::UppercaseFirstChar { .. } | ParameterExpr::UppercasePattern { .. }
            );
            let first = matches!(
                expr,
                ParameterExpr::UppercaseFirstChar { .. } | ParameterExpr::LowercaseFirstChar { .. }
            );
            let mut out = String::with_capacity(value.len());
            for (at, &c) in chars.iter().enumerate() {
                let changed = (at == 0 || !first)
                    && match &pattern {
                        None => true,
                        Some(pattern) => one(pattern, c)?,
                    };
                match (changed, upper) {
                    (false, _) => out.push(c),
                    (true, true) => out.extend(c.to_uppercase()),
                    (true, false) => out.extend(c.to_lowercase()),
                }
            }
            out
        }
        ParameterExpr::ReplaceSubstring {
            pattern: p,
            replacement,
            match_kind,
            ..
        } => {
            let pattern = Wildcards::parse(p).filter(|_| !p.is_empty())?;
            let with = replacement.as_deref().unwrap_or("");
            if !plain(with) {
                return None;
            }
            match (match_kind, pattern.text()) {
                (SubstringMatchKind::Prefix, Some(p)) => match value.strip_prefix(&p) {
                    Some(rest) => format!("{with}{rest}"),
                    None => value.to_owned(),
                },
                (SubstringMatchKind::Suffix, Some(p)) => match value.strip_suffix(&p) {
                    Some(rest) => format!("{rest}{with}"),
                    None => value.to_owned(),
                },
                (SubstringMatchKind::FirstOccurrence, Some(p)) => value.replacen(&p, with, 1),
                (SubstringMatchKind::Anywhere, Some(p)) => value.replace(&p, with),
                // With wildcards: the longest match at the start, at the end, or at
                // the first place (each place in turn) where one starts.
                (SubstringMatchKind::Prefix, None) => match matched(&pattern, 0, false)?.1 {
                    Some(cut) => format!("{with}{}", taken(cut, chars.len())),
                    None => value.to_owned(),
                },
                (SubstringMatchKind::Suffix, None) => match matched(&pattern, 0, true)?.1 {
                    Some(cut) => format!("{}{with}", taken(0, chars.len() - cut)),
                    None => value.to_owned(),
                },
                (kind, None) => {
                    let all = matches!(kind, SubstringMatchKind::Anywhere);
                    let (mut out, mut at, mut done) = (String::new(), 0, false);
                    while at < chars.len() {
                        match matched(&pattern, at, false)?.1 {
                            Some(length) if length > 0 && !done => {
                                out.push_str(with);
                                at += length;
                                done = !all;
                            }
                            _ => {
                                out.push(chars[at]);
                                at += 1;
                            }
                        }
                    }
                    out
                }
            }
        }
        ParameterExpr::Transform { op, .. } => match op {
            ParameterTransformOp::ToUpperCase => value.to_uppercase(),
            ParameterTransformOp::ToLowerCase => value.to_lowercase(),
            ParameterTransformOp::CapitalizeInitial => {
                let mut out = String::with_capacity(value.len());
                for (at, c) in chars.iter().enumerate() {
                    match at {
                        0 => out.extend(c.to_uppercase()),
                        _ => out.push(*c),
                    }
                }
                out
            }
            ParameterTransformOp::ExpandEscapeSequences => ansi_c(value)?,
            // A prompt's expansion leaves text without escapes, expansions or `!`.
            ParameterTransformOp::PromptExpand if !value.contains(['\\', '$', '`', '!']) => {
                value.to_owned()
            }
            // Quoted as bash quotes a value without control characters.
            ParameterTransformOp::Quoted if !value.chars().any(char::is_control) => {
                format!("'{}'", value.replace('\'', "'\\''"))
            }
            _ => return None,
        },
        _ => return None,
    })
}

/// Where `${X:offset:length}` starts and ends in `count` characters (or fields), when
/// its numbers are plain integers (negative ones counted from the end).
fn slice(count: i64, offset: &str, length: Option<&str>) -> Option<(i64, i64)> {
    let number = |text: &str| text.trim().parse::<i64>().ok();
    let offset = number(offset)?;
    let start = if offset < 0 {
        count.saturating_add(offset).max(0)
    } else {
        offset.min(count)
    };
    let end = match length {
        None => count,
        Some(length) => {
            let length = number(length)?;
            let end = if length < 0 {
                count.saturating_add(length)
            } else {
                start.saturating_add(length)
            };
            if end < start {
                return None;
            }
            end.min(count)
        }
    };
    Some((start, end))
}

/// Adds `value` to `out`, split into fields where `reading` says (a wildcard in it
/// then unquoted), its fields joined by a space when `joined` and quoted; `false`,
/// adding nothing, past the string's bytes of values.
pub(super) fn push_value(
    value: &str,
    joined: bool,
    reading: Reading<'_>,
    quoted: bool,
    out: &mut Analysed,
) -> bool {
    // Past the bytes a string's values may make, as written (the reader then fails).
    if let Some(bytes) = reading.bytes {
        bytes.set(bytes.get().saturating_add(value.len()));
        if bytes.get() > MAX_VALUE_BYTES {
            return false;
        }
    }
    let split = reading.split.filter(|_| !quoted);
    out.glob |= split.is_some() && has_glob(value);
    for c in value.chars() {
        let c = match split {
            Some(ifs) if matches!(c, ' ' | '\t' | '\n') || ifs.contains(c) => FIELD,
            // `"$*"` joins the arguments with a space, `"$@"` keeps each a word.
            _ if c == FIELD && joined && quoted => ' ',
            _ => c,
        };
        out.text.push(c);
        out.path.push(c);
    }
    true
}

/// The name a variable of the string is known by in [`Judge::values`]: its own, the
/// number of a positional parameter (`$1`), `@` for all of them (`$*` too), an
/// array's element as [`element`] names it and `A[@]` for all its elements (`A[*]`
/// too; the value of those that stand for many holds a [`FIELD`] between each two).
pub(super) fn variable(parameter: &Parameter) -> Option<String> {
    match parameter {
        Parameter::Named(name) => Some(name.clone()),
        Parameter::Positional(n) if *n > 0 => Some(n.to_string()),
        Parameter::Special(SpecialParameter::AllPositionalParameters { .. }) => {
            Some("@".to_owned())
        }
        Parameter::NamedWithIndex { name, index } => Some(element(name, index)),
        Parameter::NamedWithAllIndices { name, .. } => Some(all(name)),
        _ => None,
    }
}

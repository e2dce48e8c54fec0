//! The documentation, held to the service: every example that talks to a
//! running service works as written, every link resolves inside the
//! repository, and the configuration table equals config/default.toml
//! (the metrics, errors and degraded-reasons tables are held by unit tests
//! beside their code).

use std::{
    collections::{BTreeMap, BTreeSet},
    path::{Path, PathBuf},
    process::Command,
};

use serde_json::Value;

use crate::support::binary::Binary;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The Markdown files a reader of the repository meets.
fn documents() -> Vec<PathBuf> {
    let root = Path::new(ROOT);
    let mut files: Vec<PathBuf> = ["README.md", "SECURITY.md", "CHANGELOG.md", "BENCHMARKS.md"]
        .iter()
        .map(|f| root.join(f))
        .collect();
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The fenced blocks of `markdown`: (info string, body).
fn fenced_blocks(markdown: &str) -> Vec<(String, String)> {
    let mut blocks = Vec::new();
    let mut open: Option<(String, String)> = None;
    for line in markdown.lines() {
        match (&mut open, line.trim_start().strip_prefix("```")) {
            (None, Some(info)) => open = Some((info.trim().to_owned(), String::new())),
            (Some(_), Some("")) => blocks.extend(open.take()),
            (Some((_, body)), _) => {
                body.push_str(line);
                body.push('\n');
            }
            (None, None) => {}
        }
    }
    blocks
}

/// `markdown` without its fenced blocks (links there are code, not links).
fn prose(markdown: &str) -> String {
    let mut inside = false;
    markdown
        .lines()
        .filter(|line| {
            if line.trim_start().starts_with("```") {
                inside = !inside;
                return false;
            }
            !inside
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn curl_is_installed_for_the_examples() {
    let found = Command::new("curl").arg("--version").output();
    assert!(
        found.is_ok_and(|o| o.status.success()),
        "the docs' examples are run with curl: apt-get install curl"
    );
}

#[tokio::test]
async fn every_example_that_talks_to_the_service_works_as_written() {
    let mut ran = 0;
    for path in documents() {
        let examples: Vec<String> = fenced_blocks(&read(&path))
            .into_iter()
            .filter(|(info, _)| info == "sh example")
            .map(|(_, body)| body)
            .collect();
        if examples.is_empty() {
            continue;
        }
        // One fresh service per file, nothing configured, from an empty
        // directory: the examples of a file build on each other.
        let dir = tempfile::tempdir().unwrap();
        let service = Binary::start_in(Some(dir.path()), [("APP_ENV", "docs")]);
        for example in examples {
            let script = example.replace("localhost:8080", &service.addr);
            let out = Command::new("sh")
                .args(["-e", "-c", &script])
                .env_clear()
                .env("PATH", std::env::var_os("PATH").unwrap_or_default())
                .output()
                .expect("sh runs");
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert!(
                out.status.success(),
                "{}: the example\n{example}\nfailed ({}):\n{stdout}\n{}",
                path.display(),
                out.status,
                String::from_utf8_lossy(&out.stderr)
            );
            if example.contains("/api/suggestions") && path.ends_with("README.md") {
                readme_shows_the_answer(&stdout);
            }
            ran += 1;
        }
    }
    assert!(
        ran >= 3,
        "the README and docs/ carry runnable examples ({ran})"
    );
}

/// The README's answer is the one its example gets, but for what varies
/// from run to run (`...`).
fn readme_shows_the_answer(stdout: &str) {
    let got: Value = serde_json::from_str(stdout).expect("the example answers JSON");
    let readme = read(&Path::new(ROOT).join("README.md"));
    let shown: Value = fenced_blocks(&readme)
        .into_iter()
        .find(|(info, _)| info == "json")
        .and_then(|(_, body)| serde_json::from_str(&body).ok())
        .expect("the README shows the answer as JSON");
    for field in [
        "/m365",
        "/posts",
        "/source",
        "/unavailableSources",
        "/meta/path",
        "/meta/rounds",
        "/meta/degraded",
    ] {
        assert_eq!(shown.pointer(field), got.pointer(field), "{field}: {got}");
    }
    assert!(
        got["actionHint"].is_string() && got["meta"]["runId"].is_string(),
        "{got}"
    );
}

/// GitHub's anchor for a heading: lower case, punctuation dropped, spaces
/// as hyphens.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of `markdown`'s headings (a repeated one gets `-1`, `-2`, …).
fn anchors(markdown: &str) -> BTreeSet<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    prose(markdown)
        .lines()
        .filter_map(|l| l.strip_prefix('#'))
        .map(|l| slug(l.trim_start_matches('#')))
        .map(|s| {
            let n = seen.entry(s.clone()).or_default();
            *n += 1;
            match *n {
                1 => s,
                n => format!("{s}-{}", n - 1),
            }
        })
        .collect()
}

/// The targets of `markdown`'s inline links.
fn links(markdown: &str) -> Vec<String> {
    prose(markdown)
        .split("](")
        .skip(1)
        .filter_map(|rest| rest.split(')').next())
        .map(|target| target.split_whitespace().next().unwrap_or("").to_owned())
        .collect()
}

#[test]
fn every_link_resolves_inside_the_repository() {
    let root = Path::new(ROOT).canonicalize().unwrap();
    let mut broken = Vec::new();
    for path in documents() {
        let markdown = read(&path);
        for target in links(&markdown) {
            if target.starts_with("https://") || target.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let file = match file {
                "" => path.clone(),
                f => path.parent().unwrap().join(f),
            };
            let inside = file
                .canonicalize()
                .is_ok_and(|f| f.starts_with(&root) && f.exists());
            let anchored = anchor.is_empty()
                || (file.extension().is_some_and(|e| e == "md")
                    && file.is_file()
                    && anchors(&read(&file)).contains(anchor));
            if !inside || !anchored {
                broken.push(format!("{}: {target}", path.display()));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// The rows of the table under `header` in `markdown`, as cells.
fn table(markdown: &str, header: &str) -> Vec<Vec<String>> {
    let start = markdown
        .find(header)
        .unwrap_or_else(|| panic!("a table headed {header}"));
    markdown[start..]
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|row| {
            row.trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().to_owned())
                .collect()
        })
        .collect()
}

/// The backquoted words of a cell.
fn quoted(cell: &str) -> Vec<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

/// Every key of config/default.toml with its default as the docs write it
/// (`empty`, `unset` for the commented-out ones, else the value).
fn configuration_keys() -> BTreeMap<String, String> {
    let text = read(&Path::new(ROOT).join("config/default.toml"));
    let parsed: toml::Table = text.parse().expect("default.toml parses");
    let mut keys = BTreeMap::new();
    for (section, values) in &parsed {
        for (key, value) in values.as_table().expect("sections of keys") {
            let shown = match value {
                toml::Value::String(s) if s.is_empty() => "empty".to_owned(),
                toml::Value::Array(a) if a.is_empty() => "empty".to_owned(),
                toml::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            keys.insert(format!("{section}.{key}"), shown);
        }
    }
    let mut section = "";
    for line in text.lines() {
        if let Some(name) = line.strip_prefix('[') {
            section = name.trim_end_matches(']');
        } else if let Some((key, _)) = line.strip_prefix("# ").and_then(|l| l.split_once(" = "))
            && key.chars().all(|c| c.is_ascii_lowercase() || c == '_')
        {
            keys.insert(format!("{section}.{key}"), "unset".to_owned());
        }
    }
    keys
}

#[test]
fn the_configuration_table_lists_every_key_with_its_variable_and_default() {
    let docs = read(&Path::new(ROOT).join("docs/configuration.md"));
    let rows = table(&docs, "| key | env | default | what |");
    let mut documented = BTreeMap::new();
    for row in &rows {
        let keys = quoted(&row[0]);
        let [key] = keys.as_slice() else {
            panic!("one key per row: {row:?}");
        };
        let env = format!("LINKUP__{}", key.replace('.', "__").to_uppercase());
        assert!(
            quoted(&row[1]).contains(&env),
            "{key}: {env} in {:?}",
            row[1]
        );
        let default = row[2]
            .split_whitespace()
            .next()
            .map(|w| w.trim_matches(|c| c == '`' || c == ',' || c == ';'))
            .unwrap_or_default();
        documented.insert(key.clone(), default.to_owned());
    }
    assert_eq!(documented, configuration_keys());
}

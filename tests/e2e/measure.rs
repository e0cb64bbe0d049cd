//! Figures for a large real library, printed and never asserted: how long
//! the window takes to become usable, and how long a keystroke takes to come
//! back as fresh findings and token costs. Needs `HONE_CORPUS`, a folder of
//! skills (only read, never saved): ignored without it, failing when run
//! without it.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::harness::{Harness, Painting};

/// Keystrokes timed; the median is reported.
const KEYSTROKES: usize = 7;

/// How long a keystroke is left to take effect before the test looks.
const SETTLE: Duration = Duration::from_millis(400);

#[test]
#[ignore = "needs the shared corpus: HONE_CORPUS=../shared/corpus cargo test -- --ignored"]
fn figures_for_a_large_library() {
    let corpus = std::env::var_os("HONE_CORPUS")
        .map(PathBuf::from)
        .expect("HONE_CORPUS is not set: point it at a folder of skills");
    let corpus = corpus
        .canonicalize()
        .unwrap_or_else(|e| panic!("HONE_CORPUS={}: {e}", corpus.display()));
    let Some(harness) = Harness::start_with(Some(&corpus), Painting::Plain) else {
        return;
    };
    let skill = typical_skill(&corpus).expect("a skill with a one-line description");
    harness.block_on(measure(&harness, &skill));
}

async fn measure(harness: &Harness, skill: &Path) {
    let started = Instant::now();
    let app = harness.launch().await;
    // Usable: the list is filled and the first skill is in the editor, checked.
    // The window measures that itself, from the app's start; the harness's
    // figure adds the WebDriver session.
    let ready_ms = loop {
        let ready = app
            .attribute_of("[data-testid=library-summary]", "data-ready-ms")
            .await;
        if let Some(ms) = ready.and_then(|v| v.parse::<u64>().ok()) {
            break ms;
        }
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "the window never became ready"
        );
        // Every WebDriver call runs script in the page: poll gently.
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    println!(
        "figures: app start to usable window: {ready_ms} ms (WebDriver session included: {} ms; {})",
        started.elapsed().as_millis(),
        app.text_of("[data-testid=library-summary]")
            .await
            .unwrap_or_default()
    );
    // The findings of every skill follow, computed off the window's thread.
    loop {
        let summary = app
            .text_of("[data-testid=library-summary]")
            .await
            .unwrap_or_default();
        if !summary.contains("checking") {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(300), "no findings");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    println!(
        "figures: start to every skill's finding counts: {} ms (WebDriver session included)",
        started.elapsed().as_millis()
    );
    app.screenshot("large-library").await;

    // The list shows only the rows in view: find the skill by filtering. From
    // the end of the list, a broad filter shows its matches from the top.
    app.scroll_to_end(".sidebar .scroller").await;
    let filter = "input[aria-label='Filter skills']";
    app.clear_and_type(filter, "-").await;
    app.wait_for("[data-testid=skill-list] li[aria-posinset='1']")
        .await;
    let name = skill.file_name().unwrap().to_string_lossy();
    app.clear_and_type(filter, &name).await;
    let selector = format!("[data-testid=skill-list] li[title='{}']", skill.display());
    app.click(&selector).await;
    app.wait_for_text("[data-testid=editor]", "description: ")
        .await;
    // Token costs measures every skill at each stage, off the window's
    // thread; the keystrokes are timed once that is done.
    let costs_opened = Instant::now();
    app.show_tab("costs").await;
    app.wait_for("[data-testid=library-stage-chart] button[data-skill]")
        .await;
    println!(
        "figures: Token costs opened to every skill's stage bars: {} ms (WebDriver polling included; {})",
        costs_opened.elapsed().as_millis(),
        app.text_of("[data-testid=stage-page]")
            .await
            .unwrap_or_default()
    );
    // Shown again, the tab gets the answer kept for this state of the library.
    app.show_tab("problems").await;
    app.wait_for_gone("[data-testid=library-stage-chart]").await;
    let costs_reopened = Instant::now();
    app.show_tab("costs").await;
    app.wait_for("[data-testid=library-stage-chart] button[data-skill]")
        .await;
    println!(
        "figures: Token costs shown again to every skill's stage bars: {} ms (WebDriver polling included)",
        costs_reopened.elapsed().as_millis()
    );
    app.click_line_end("description: ").await;
    let (mut in_app, mut engine) = (Vec::new(), Vec::new());
    for _ in 0..KEYSTROKES {
        let before = description_chars(&app).await;
        app.type_keys("x").await;
        // The window times itself; WebDriver calls would only slow it down
        // (each runs script in the page), so wait without polling first.
        tokio::time::sleep(SETTLE).await;
        let typed = Instant::now();
        while description_chars(&app).await != before + 1 {
            assert!(
                typed.elapsed() < Duration::from_secs(20),
                "no analysis after a keystroke"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let shown = app
            .text_of("[data-testid=engine-time]")
            .await
            .unwrap_or_default();
        in_app.extend(number_after::<u64>(&shown, "costs: "));
        engine.extend(number_after::<f64>(&shown, "(engine "));
    }
    assert!(
        !in_app.is_empty(),
        "the window showed no edit-to-findings time (status line)"
    );
    engine.sort_by(f64::total_cmp);
    println!(
        "figures: keystroke to fresh findings and costs on {}, measured in the window: median {} ms, all {in_app:?}; the engine's share {engine:?} ms",
        skill.display(),
        median(&mut in_app),
    );
    // Take the keystrokes back so the window has nothing unsaved.
    let backspaces: String =
        std::iter::repeat_n(char::from(fantoccini::key::Key::Backspace), KEYSTROKES).collect();
    app.type_keys(&backspaces).await;
    app.wait_for_gone("[data-testid=dirty]").await;

    // The test-query panel: a keystroke to the re-ranked list, keyword ranking.
    app.show_tab("query").await;
    app.select("[data-testid=ranker]", "bm25").await;
    app.clear_and_type(
        "[data-testid=query-input]",
        "review my pull request for security iss",
    )
    .await;
    app.wait_for("[data-testid=result]").await;
    let mut in_app = Vec::new();
    let mut typed_so_far = String::from("review my pull request for security iss");
    for key in "ues in the auth code".chars() {
        app.type_keys(&key.to_string()).await;
        typed_so_far.push(key);
        tokio::time::sleep(SETTLE).await;
        let typed = Instant::now();
        while app
            .attribute_of("[data-testid=rank-timing]", "data-query")
            .await
            .as_deref()
            != Some(typed_so_far.as_str())
        {
            assert!(
                typed.elapsed() < Duration::from_secs(20),
                "no ranking after a keystroke"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let shown = app
            .text_of("[data-testid=rank-timing]")
            .await
            .unwrap_or_default();
        in_app.extend(number_after::<u64>(&shown, "keystroke to list "));
    }
    assert!(
        !in_app.is_empty(),
        "the window showed no keystroke-to-list time (status line)"
    );
    println!(
        "figures: test-query keystroke to re-ranked list (BM25, {} skills), measured in the window: median {} ms, all {in_app:?}",
        harness.skill_count_deep(),
        median(&mut in_app),
    );
    app.screenshot("large-library-query").await;
    first_hybrid_query(&app).await;
    app.close().await;
}

/// The first hybrid query builds the semantic index of the whole library
/// (seconds): the panel says so while it works, and the threshold is the
/// hybrid ranker's from the moment it is chosen, not when results arrive.
async fn first_hybrid_query(app: &crate::harness::App) {
    let available = app
        .script(
            "const o = [...document.querySelectorAll('[data-testid=ranker] option')].find((o) => o.value === 'hybrid'); return !!o && !o.textContent.includes('missing');",
            vec![],
        )
        .await;
    if available != serde_json::Value::Bool(true) {
        println!("figures: no embedding model; the first hybrid query is not measured");
        return;
    }
    let started = Instant::now();
    app.select("[data-testid=ranker]", "hybrid").await;
    app.wait_for_text(".threshold .num", "0.60").await;
    app.wait_for("[data-testid=rank-progress]").await;
    app.screenshot("large-library-first-hybrid-query").await;
    app.wait_for_gone_within("[data-testid=rank-progress]", Duration::from_secs(300))
        .await;
    app.wait_for("[data-testid=result]").await;
    println!(
        "figures: first hybrid query on the large library (index built, disk cache as found): {} ms",
        started.elapsed().as_millis()
    );
    assert_eq!(
        app.text_of(".threshold .num").await.as_deref(),
        Some("0.60")
    );
}

/// The number (in ms) that follows `label` in `text`.
/// The number the window shows after `label` (`23 ms`, `6.0 ms`).
fn number_after<T: std::str::FromStr>(text: &str, label: &str) -> Option<T> {
    let rest = &text[text.find(label)? + label.len()..];
    let number: String = rest
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    number.parse().ok()
}

fn median<T: Ord + Copy + Default>(values: &mut [T]) -> T {
    values.sort();
    values.get(values.len() / 2).copied().unwrap_or_default()
}

/// The description length the form shows (`1,234 / 1,024 · …`).
async fn description_chars(app: &crate::harness::App) -> usize {
    let shown = app
        .text_of("[data-testid=description-count]")
        .await
        .unwrap_or_default();
    shown
        .split('/')
        .next()
        .unwrap_or_default()
        .chars()
        .filter(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .unwrap_or(usize::MAX)
}

/// The folder of a median-sized skill whose description is one plain line
/// (typing at its end changes the description and nothing else).
fn typical_skill(corpus: &Path) -> Option<PathBuf> {
    let mut found = Vec::new();
    collect_skills(corpus, &mut found);
    let mut candidates: Vec<(u64, PathBuf)> = found
        .into_iter()
        .filter(|dir| !dir.to_string_lossy().contains(['\'', '"', '\\']))
        .filter_map(|dir| {
            let text = std::fs::read_to_string(dir.join("SKILL.md")).ok()?;
            let plain_description = text.starts_with("---\n")
                && text.lines().take(12).any(|line| {
                    line.strip_prefix("description: ")
                        .is_some_and(|v| !v.starts_with(['>', '|', '"', '\'']) && !v.contains(": "))
                });
            plain_description.then_some((text.len() as u64, dir))
        })
        .collect();
    candidates.sort();
    candidates
        .get(candidates.len() / 2)
        .map(|(_, dir)| dir.clone())
}

fn collect_skills(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            if path.join("SKILL.md").is_file() {
                found.push(path.clone());
            }
            collect_skills(&path, found);
        }
    }
}

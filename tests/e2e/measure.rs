//! Figures for a large real library, printed and never asserted: how long
//! the window takes to become usable, and how long a keystroke takes to come
//! back as fresh findings and token costs. Runs only when `HONE_CORPUS`
//! names a folder of skills (the library is only read, never saved).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::harness::Harness;

/// Keystrokes timed; the median is reported.
const KEYSTROKES: usize = 7;

#[test]
fn figures_for_a_large_library() {
    let Some(corpus) = std::env::var_os("HONE_CORPUS")
        .map(PathBuf::from)
        .filter(|p| p.is_dir())
    else {
        eprintln!("skipping the large-library figures: set HONE_CORPUS to a folder of skills");
        return;
    };
    let corpus = corpus.canonicalize().unwrap();
    let Some(harness) = Harness::start_with(Some(&corpus)) else {
        return;
    };
    let skill = typical_skill(&corpus).expect("a skill with a one-line description");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(measure(&harness, &skill));
}

async fn measure(harness: &Harness, skill: &Path) {
    let started = Instant::now();
    let app = harness.launch().await;
    // Usable: the list is filled and the first skill is in the editor.
    app.wait_for_text_within(
        "[data-testid=library-summary]",
        "loaded in",
        Duration::from_secs(300),
    )
    .await;
    app.wait_for(".cm-line").await;
    println!(
        "figures: start to interactive window: {} ms ({})",
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
        "figures: start to every skill's finding counts: {} ms",
        started.elapsed().as_millis()
    );
    app.screenshot("large-library").await;

    let selector = format!("[data-testid=skill-list] li[title='{}']", skill.display());
    app.click(&selector).await;
    app.wait_for_text("[data-testid=editor]", "description: ")
        .await;
    app.click_line_end("description: ").await;
    let mut timings = Vec::new();
    for _ in 0..KEYSTROKES {
        let before = description_chars(&app).await;
        let typed = Instant::now();
        app.type_keys("x").await;
        while description_chars(&app).await != before + 1 {
            assert!(
                typed.elapsed() < Duration::from_secs(20),
                "no analysis after a keystroke"
            );
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        timings.push(typed.elapsed().as_millis());
    }
    timings.sort();
    println!(
        "figures: keystroke to fresh findings and costs on {}: median {} ms, all {timings:?} (includes WebDriver round trips)",
        skill.display(),
        timings[timings.len() / 2]
    );
    // Take the keystrokes back so the window has nothing unsaved.
    let backspaces: String =
        std::iter::repeat_n(char::from(fantoccini::key::Key::Backspace), KEYSTROKES).collect();
    app.type_keys(&backspaces).await;
    app.wait_for_gone("[data-testid=dirty]").await;
    app.click("[data-testid=tab-costs]").await;
    println!(
        "figures: {} (the last backspace)",
        app.text_of("[data-testid=engine-time]")
            .await
            .unwrap_or_default()
    );

    // The test-query panel: a keystroke to the re-ranked list, keyword ranking.
    app.click("[data-testid=tab-query]").await;
    app.select("[data-testid=ranker]", "bm25").await;
    app.clear_and_type(
        "[data-testid=query-input]",
        "review my pull request for security iss",
    )
    .await;
    app.wait_for("[data-testid=result]").await;
    let mut timings = Vec::new();
    let mut engine = Vec::new();
    for key in "ues in the auth code".chars() {
        let before = app.text_of("[data-testid=rank-timing]").await;
        let typed = Instant::now();
        app.type_keys(&key.to_string()).await;
        while app.text_of("[data-testid=rank-timing]").await == before {
            assert!(
                typed.elapsed() < Duration::from_secs(20),
                "no ranking after a keystroke"
            );
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        timings.push(typed.elapsed().as_millis());
        let shown = app
            .text_of("[data-testid=rank-timing]")
            .await
            .unwrap_or_default();
        engine.push(shown);
    }
    timings.sort();
    println!(
        "figures: test-query keystroke to re-ranked list (BM25, {} skills): median {} ms, all {timings:?} (includes WebDriver round trips); last panel line: {}",
        harness.skill_count_deep(),
        timings[timings.len() / 2],
        engine.last().cloned().unwrap_or_default()
    );
    app.screenshot("large-library-query").await;
    app.close().await;
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

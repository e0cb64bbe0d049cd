//! State integrity, as issue 19 lists it: each check is a thing an author
//! did in the window that lost or misreported their work. One window serves
//! them all (starting WebKit costs seconds); each check starts from a reloaded
//! page, runs to its end even when an earlier one failed, and the test fails
//! at the end naming every check that did, so one broken item does not hide
//! the state of the others.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::path::Path;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use fantoccini::Locator;
use fantoccini::key::Key;

use crate::harness::{App, Harness};

/// A description written as a folded block at a 60-column width.
const FOLDED: &str = "---\nname: integrity-a\ndescription: >-\n  Formats calendar dates in reports and tables. Use when a date\n  appears in a report, a table or a changelog entry, and the\n  author wants one consistent style.\nlicense: MIT\n---\n\n# Dates\n\nSee [the notes](notes.txt) for the house style.\n";

const PLAIN: &str = "---\nname: integrity-b\ndescription: Checks regular expressions for catastrophic backtracking. Use when a regex is slow.\nlicense: MIT\n---\n\n# Plain body\n\nNo resources here.\n";

/// Two folders whose skills share a name, as in large corpora.
const TWIN: &str = "---\nname: twin\ndescription: A skill whose name another folder also uses. Use when testing duplicates.\n---\n\nBody.\n";

const SUITE: &str = "name: integrity\ncases:\n  - query: \"catastrophic backtracking in my regular expression\"\n    expect: [integrity-b]\n  - query: \"zorblat the quibbles\"\n    expect: [integrity-a]\n";

#[test]
fn the_state_integrity_story() {
    let Some(harness) = Harness::start_or_skip() else {
        return;
    };
    harness.block_on(story(&harness));
}

async fn story(harness: &Harness) {
    let library = harness.library().to_path_buf();
    write(&library.join("integrity-a/SKILL.md"), FOLDED);
    write(
        &library.join("integrity-a/notes.txt"),
        "House style: ISO 8601 dates.\n",
    );
    write(&library.join("integrity-b/SKILL.md"), PLAIN);
    write(&library.join("twin-one/SKILL.md"), TWIN);
    write(&library.join("twin-two/SKILL.md"), TWIN);
    write(&library.join("evals/integrity.yaml"), SUITE);

    let app = harness.launch().await;
    app.wait_for("[data-skill=integrity-b]").await;
    app.wait_for(".cm-line").await;

    let mut failed = Vec::new();
    let checks: [(&str, Check); 10] = [
        ("1 dialogs take and hold focus", |a, l| {
            Box::pin(dialogs(a, l))
        }),
        ("2 discard when switching skills", |a, l| {
            Box::pin(discard_on_switch(a, l))
        }),
        ("3 form edits keep a block description", |a, l| {
            Box::pin(block_description(a, l))
        }),
        ("4 token costs with twins and window changes", |a, l| {
            Box::pin(token_costs(a, l))
        }),
        ("5 panels follow the open skill", |a, l| {
            Box::pin(panels_follow(a, l))
        }),
        ("6 broken YAML keeps the last good form", |a, l| {
            Box::pin(broken_yaml(a, l))
        }),
        ("7 eval cases", |a, l| Box::pin(eval_cases(a, l))),
        ("8 undo in the form steps like the editor", |a, l| {
            Box::pin(form_undo(a, l))
        }),
        ("9 threshold of a ranker before its results", |a, l| {
            Box::pin(ranker_threshold(a, l))
        }),
        ("10 links in the preview", |a, l| {
            Box::pin(preview_links(a, l))
        }),
    ];
    for (name, check) in checks {
        app.reload().await;
        match CatchUnwind(check(&app, &library)).await {
            Ok(()) => println!("e2e integrity: ok: {name}"),
            Err(reason) => {
                println!("e2e integrity: FAILED: {name}: {reason}");
                failed.push(name);
            }
        }
    }
    app.close().await;
    assert!(failed.is_empty(), "failed checks: {failed:?}");
}

type Check = for<'a> fn(&'a App, &'a Path) -> Pin<Box<dyn Future<Output = ()> + 'a>>;

/// Runs a check to its end, turning a panic (a failed assertion or wait)
/// into an error so that the next check still runs.
struct CatchUnwind<'a>(Pin<Box<dyn Future<Output = ()> + 'a>>);

impl Future for CatchUnwind<'_> {
    type Output = Result<(), String>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let future = self.0.as_mut();
        match std::panic::catch_unwind(AssertUnwindSafe(|| future.poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(())) => Poll::Ready(Ok(())),
            Err(panic) => Poll::Ready(Err(panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_default())),
        }
    }
}

/// One WebDriver exchange inside the preview frame, which must get an answer.
async fn within<T>(exchange: impl Future<Output = T>) -> Result<T, tokio::time::error::Elapsed> {
    tokio::time::timeout(Duration::from_secs(20), exchange).await
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn key(k: Key) -> String {
    String::from(char::from(k))
}

fn ctrl(keys: &str) -> String {
    format!("{}{keys}{}", key(Key::Control), key(Key::Control))
}

async fn open_skill(app: &App, id: &str, needle: &str) {
    app.click(&format!("[data-skill={id}]")).await;
    app.wait_for_text("[data-testid=current-skill]", id).await;
    app.wait_for_text("[data-testid=editor]", needle).await;
}

/// Item 1: a dialog takes the focus from the editor, keeps Tab inside, and
/// Escape closes it.
async fn dialogs(app: &App, library: &Path) {
    open_skill(app, "integrity-b", "Plain body").await;
    app.click_line_end("No resources here.").await;
    app.click(".actions button:nth-child(1)").await;
    app.wait_for_focus_in("[role=dialog]").await;
    app.type_keys("integrity-new").await;
    app.type_keys(&key(Key::Enter)).await;
    app.wait_for_text("[data-testid=current-skill]", "integrity-new")
        .await;
    assert!(library.join("integrity-new/SKILL.md").is_file());
    assert_eq!(
        std::fs::read_to_string(library.join("integrity-b/SKILL.md")).unwrap(),
        PLAIN
    );

    // The Delete dialog: Tab and Shift+Tab cycle inside it.
    app.click(".actions button:nth-child(3)").await;
    app.wait_for_focus_in("[role=dialog]").await;
    let labelled = app
        .attribute_of("[role=dialog]", "aria-labelledby")
        .await
        .expect("the dialog names its title");
    assert!(app.text_of(&format!("#{labelled}")).await.is_some());
    for step in 0..5 {
        let keys = if step % 2 == 0 {
            key(Key::Tab)
        } else {
            format!("{}{}{}", key(Key::Shift), key(Key::Tab), key(Key::Shift))
        };
        app.type_keys(&keys).await;
        assert!(
            app.focus_is_in("[role=dialog]").await,
            "Tab left the dialog"
        );
    }
    app.type_keys(&key(Key::Escape)).await;
    app.wait_for_gone("[role=dialog]").await;
    assert!(library.join("integrity-new/SKILL.md").is_file());
}

/// Item 2: after an unsaved form edit, choosing another skill and Discard
/// opens that skill, and the form shows its values, not the discarded text.
async fn discard_on_switch(app: &App, library: &Path) {
    open_skill(app, "integrity-b", "Plain body").await;
    app.click("#field-description").await;
    app.type_keys(&format!("{} DISCARDME", key(Key::End))).await;
    app.wait_for_text("[data-testid=editor]", "DISCARDME").await;
    app.click("[data-skill=regex-authoring]").await;
    app.click("[role=dialog] .buttons button:nth-child(2)")
        .await;
    app.wait_for_text("[data-testid=current-skill]", "regex-authoring")
        .await;
    app.wait_for_text("[data-testid=editor]", "name: regex-authoring")
        .await;
    let shown = app
        .wait_for_value("#field-description", |v| !v.is_empty())
        .await;
    assert!(!shown.contains("DISCARDME"), "the form kept: {shown}");
    app.click("#field-description").await;
    app.type_keys(&format!("{} ok", key(Key::End))).await;
    app.wait_for_text("[data-testid=editor]", " ok").await;
    assert!(!app.editor_text().await.contains("DISCARDME"));
    assert_eq!(
        std::fs::read_to_string(library.join("integrity-b/SKILL.md")).unwrap(),
        PLAIN
    );
}

/// Item 3: a one-word change through the form keeps `>-` and the width.
async fn block_description(app: &App, _: &Path) {
    open_skill(app, "integrity-a", "Formats calendar dates").await;
    app.click("#field-description").await;
    app.type_keys(&format!("{} Also tables.", ctrl(&key(Key::End))))
        .await;
    app.wait_for_text("[data-testid=editor]", "Also tables.")
        .await;
    let text = app.editor_text().await;
    assert!(
        text.contains(
            "description: >-\n  Formats calendar dates in reports and tables. Use when a date\n  appears in a report, a table or a changelog entry, and the\n  author wants one consistent style. Also tables.\nlicense: MIT"
        ),
        "the block was rewritten:\n{text}"
    );
}

/// Item 4: the library's costs show with two skills of one name, and
/// follow each change of the model (and so of its context window).
async fn token_costs(app: &App, _: &Path) {
    app.show_tab("costs").await;
    for (value, shown) in [
        ("claude-sonnet-4-5", "claude-sonnet-4-5's 200,000."),
        ("", "claude-opus-5-5's 1,000,000."),
        ("claude-sonnet-4-5", "claude-sonnet-4-5's 200,000."),
    ] {
        app.select(".inspector .controls label:nth-child(2) select", value)
            .await;
        app.wait_for_text(".inspector .pane", shown).await;
    }
    app.wait_for_text(".inspector .pane", "twin").await;
    // Twins are told apart by their folder, in the list and the per-skill chart.
    app.wait_for_count("[data-testid=skill-list] [data-testid=twin-dir]", 2)
        .await;
    app.wait_for_count(
        "[data-testid=library-stage-chart] button[data-skill=twin]",
        2,
    )
    .await;
}

/// Item 5: the test-query header and an open resource follow the open skill.
async fn panels_follow(app: &App, _: &Path) {
    open_skill(app, "integrity-a", "Formats calendar dates").await;
    app.wait_for_visible(".resources button.link").await;
    app.click(".resources button.link").await;
    app.wait_for_text(".resource", "House style").await;
    open_skill(app, "integrity-b", "Plain body").await;
    app.wait_for_gone(".resource").await;

    app.show_tab("query").await;
    app.select("[data-testid=ranker]", "bm25").await;
    app.clear_and_type(
        "[data-testid=query-input]",
        "catastrophic backtracking regex",
    )
    .await;
    app.wait_for_text("[data-testid=open-rank]", "integrity-b")
        .await;
    open_skill(app, "regex-authoring", "name: regex-authoring").await;
    app.wait_for_text("[data-testid=open-rank]", "regex-authoring")
        .await;
}

/// Item 6: broken YAML leaves the last good values in a disabled form.
async fn broken_yaml(app: &App, _: &Path) {
    open_skill(app, "integrity-b", "Plain body").await;
    app.click_line_end("Checks regular expressions").await;
    app.type_keys(" Note: broken").await;
    app.wait_for("[data-testid=problems] li.error").await;
    app.wait_for(".form .blocked").await;
    assert_eq!(app.value_of("#field-name").await, "integrity-b");
    assert!(
        app.value_of("#field-description")
            .await
            .starts_with("Checks regular expressions")
    );
    assert!(app.is_disabled("#field-name").await);
}

/// Item 7: unknown names are refused at entry and reported by a run, a
/// deletion asks first, and "Failures only" shows a case just added.
async fn eval_cases(app: &App, library: &Path) {
    let suite = library.join("evals/integrity.yaml");
    app.show_tab("query").await;
    app.select("[data-testid=ranker]", "bm25").await;
    app.show_tab("evals").await;
    app.select("[data-testid=suite]", &suite.display().to_string())
        .await;
    app.wait_for_count("[data-testid=case-row]", 2).await;
    app.click("[data-testid=run-eval]").await;
    app.wait_for("[data-testid=metrics]").await;

    // An unknown name is refused where it is typed.
    app.click("[data-testid=new-case]").await;
    app.clear_and_type("[data-testid=case-query]", "sort my imports")
        .await;
    app.clear_and_type("[data-testid=case-expect]", "no-such-skill")
        .await;
    app.click("[data-testid=case-save]").await;
    app.wait_for_text("[data-testid=case-error]", "no-such-skill")
        .await;
    assert_eq!(std::fs::read_to_string(&suite).unwrap(), SUITE);

    // "Failures only" still shows a case just added.
    app.clear_and_type("[data-testid=case-expect]", "integrity-b")
        .await;
    app.click("[data-testid=failures-only]").await;
    app.click("[data-testid=case-save]").await;
    app.wait_for_gone("[data-testid=case-form]").await;
    app.wait_for_text("[data-testid=cases]", "sort my imports")
        .await;

    // Deleting asks first.
    app.click("[data-testid=failures-only]").await;
    app.wait_for_count("[data-testid=case-row]", 3).await;
    app.click("[data-testid=case-row]:nth-child(3) [data-testid=delete-case]")
        .await;
    app.wait_for("[role=dialog]").await;
    assert!(
        std::fs::read_to_string(&suite)
            .unwrap()
            .contains("sort my imports"),
        "deleted without asking"
    );
    app.click("[role=dialog] [data-testid=confirm]").await;
    app.wait_for_count("[data-testid=case-row]", 2).await;
    assert!(
        !std::fs::read_to_string(&suite)
            .unwrap()
            .contains("sort my imports")
    );

    // A name written by hand: the run says which, and no stale cards stay.
    let broken = SUITE.replace("expect: [integrity-a]", "expect: [integrity-gone]");
    write(&suite, &broken);
    app.wait_for_text("[data-testid=cases]", "integrity-gone")
        .await;
    app.click("[data-testid=run-eval]").await;
    app.wait_for_text("[data-testid=eval-error]", "integrity-gone")
        .await;
    app.wait_for_gone("[data-testid=metrics]").await;
    app.wait_for("[data-testid=case-unknown]").await;
    write(&suite, SUITE);
}

/// Item 8: one Ctrl+Z in a form field takes back the burst just typed, as
/// the editor does, not one character.
async fn form_undo(app: &App, _: &Path) {
    open_skill(app, "integrity-b", "Plain body").await;
    app.click("#field-license").await;
    app.type_keys(&format!("{} extra words", key(Key::End)))
        .await;
    app.wait_for_text("[data-testid=editor]", "license: MIT extra words")
        .await;
    app.type_keys(&ctrl("z")).await;
    app.wait_for_gone("[data-testid=dirty]").await;
    assert!(app.editor_text().await.contains("license: MIT\n"));
    app.wait_for_value("#field-license", |v| v == "MIT").await;
}

/// Item 9: choosing a ranker shows its own threshold at once, not after
/// its first results.
async fn ranker_threshold(app: &App, _: &Path) {
    app.show_tab("query").await;
    let hybrid = app
        .script(
            "const o = [...document.querySelectorAll('[data-testid=ranker] option')].find((o) => o.value === 'hybrid'); return !!o && !o.textContent.includes('missing');",
            vec![],
        )
        .await;
    app.select("[data-testid=ranker]", "bm25").await;
    app.wait_for_text(".threshold .num", "0.50").await;
    if hybrid != serde_json::Value::Bool(true) {
        println!(
            "e2e integrity: the embedding model is not installed; hybrid's threshold not checked"
        );
        return;
    }
    app.select("[data-testid=ranker]", "hybrid").await;
    app.wait_for_text(".threshold .num", "0.60").await;
    app.clear_and_type(
        "[data-testid=query-input]",
        "catastrophic backtracking regex",
    )
    .await;
    app.wait_for("[data-testid=result]").await;
    assert_eq!(
        app.text_of(".threshold .num").await.as_deref(),
        Some("0.60")
    );
}

/// Item 10: a link in the preview can be followed and come back from.
async fn preview_links(app: &App, _: &Path) {
    open_skill(app, "integrity-a", "Formats calendar dates").await;
    app.in_preview_frame(async |client| {
        // The frame's document may still be loading.
        for _ in 0..200 {
            if let Ok(Ok(link)) = within(client.find(Locator::Css("a"))).await {
                within(link.click()).await.unwrap().unwrap();
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("no link in the preview");
    })
    .await;
    app.click("[data-testid=preview-back]").await;
    let heading = app
        .in_preview_frame(async |client| {
            for _ in 0..200 {
                if let Ok(Ok(h)) = within(client.find(Locator::Css("h1"))).await {
                    return within(h.text()).await.unwrap().unwrap_or_default();
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            String::new()
        })
        .await;
    assert_eq!(heading, "Dates");
}

//! The window's layout and look (issue 19): at its minimum size, 1,024 ×
//! 700, nothing is cut and every inspector tab can be clicked; the tabs work
//! from the keyboard; the panes resize and remember their widths; the form
//! collapses; the frontmatter never soft-wraps; and in the dark theme the
//! text the window draws, YAML keys included, meets WCAG AA. Screenshots of
//! each panel in both themes are taken along the way.

use fantoccini::key::Key;

use crate::harness::{App, Harness};

const TABS: [&str; 8] = [
    "preview", "costs", "clients", "query", "evals", "security", "bench", "problems",
];

#[test]
fn the_layout_and_theme_story() {
    let Some(harness) = Harness::start_or_skip() else {
        return;
    };
    harness.block_on(story(&harness));
}

async fn story(harness: &Harness) {
    let app = harness.launch().await;
    app.wait_for("[data-testid=current-skill]").await;
    app.wait_for_gone(".banner[role=status]").await;

    // The window at its minimum size: nothing scrolls sideways, nothing is cut.
    let (width, height) = app.resize(1024, 700).await;
    app.screenshot("layout-1024x700").await;
    assert!(
        (1000..=1024).contains(&width) && (650..=700).contains(&height),
        "the page is {width}x{height}"
    );
    let overflow = app
        .script(
            "return document.documentElement.scrollWidth - window.innerWidth",
            vec![],
        )
        .await;
    assert!(
        overflow.as_i64().unwrap() <= 0,
        "the page scrolls sideways by {overflow} px"
    );
    for tab in TABS {
        let css = format!("[data-testid=tab-{tab}]");
        let (ok, why) = reachable(&app, &css).await;
        assert!(ok, "the {tab} tab is cut or covered at 1,024 px: {why}");
        app.click(&css).await;
        app.wait_for(&format!("{css}[aria-selected=true]")).await;
        app.wait_for_visible(&format!("#panel-{tab}")).await;
    }
    for control in [
        "[data-testid=save]",
        "[data-testid=open-import]",
        "[data-testid=theme]",
        "[data-testid=current-skill]",
    ] {
        let ok = app.script(
            "const r = document.querySelector(arguments[0])?.getBoundingClientRect(); return !!r && r.right <= window.innerWidth && r.width > 0",
            vec![control.into()],
        )
        .await;
        assert_eq!(ok, serde_json::json!(true), "{control} is cut at 1,024 px");
    }
    // The library's problems, for the target chosen.
    app.show_tab("problems").await;
    app.wait_for_text(
        "[data-testid=health-totals]",
        &format!("of {}", harness.skill_count()),
    )
    .await;
    app.select("[data-testid=health-target]", "claude-api")
        .await;
    app.wait_for("[data-testid=health-skills]").await;
    app.show_tab("preview").await;

    // The tabs from the keyboard: arrows move the selection and the focus.
    app.show_tab("preview").await;
    app.type_keys(&String::from(char::from(Key::Right))).await;
    app.wait_for("[data-testid=tab-costs][aria-selected=true]")
        .await;
    assert!(app.focus_is_in("[data-testid=tab-costs]").await);
    app.type_keys(&String::from(char::from(Key::End))).await;
    app.wait_for("[data-testid=tab-problems][aria-selected=true]")
        .await;
    app.type_keys(&String::from(char::from(Key::Home))).await;
    app.wait_for("[data-testid=tab-preview][aria-selected=true]")
        .await;
    assert_eq!(
        app.attribute_of("#panel-preview", "aria-labelledby")
            .await
            .as_deref(),
        Some("tab-preview")
    );

    // The frontmatter never soft-wraps; the body does.
    let wrapping = app
        .script(
            "const style = (css) => { const el = document.querySelector(css); return el && getComputedStyle(el).whiteSpace; };\
             return [style('.cm-frontmatter'), style('.cm-line:not(.cm-frontmatter)')]",
            vec![],
        )
        .await;
    assert_eq!(wrapping[0], "pre", "a frontmatter line soft-wraps");
    assert!(
        ["pre-wrap", "break-spaces"].contains(&wrapping[1].as_str().unwrap_or_default()),
        "a body line does not wrap: {wrapping}"
    );

    // A splitter moved with the keyboard: the inspector widens, and the
    // width is remembered when the window starts again.
    app.resize(1440, 900).await;
    let before = inspector_width(&app).await;
    app.click("[data-testid=splitter-inspector]").await;
    let left = String::from(char::from(Key::Left));
    app.type_keys(&left.repeat(3)).await;
    let after = inspector_width(&app).await;
    assert!(
        after >= before + 40,
        "the inspector went from {before} to {after} px"
    );
    app.reload().await;
    let remembered = inspector_width(&app).await;
    assert!(
        remembered.abs_diff(after) <= 1,
        "the inspector's width was {after} px and is {remembered} px after a restart"
    );

    // The form collapses to a strip and the text gets the room.
    let editor_before = width_of(&app, "[data-testid=editor]").await;
    app.click("[data-testid=toggle-form]").await;
    app.wait_for_gone("form[aria-label=Frontmatter]").await;
    let editor_after = width_of(&app, "[data-testid=editor]").await;
    assert!(
        editor_after > editor_before + 100,
        "{editor_before} → {editor_after}"
    );
    app.click("[data-testid=toggle-form]").await;
    app.wait_for("form[aria-label=Frontmatter]").await;

    // Every panel in the light theme, then in the dark one.
    for theme in ["light", "dark"] {
        app.select("[data-testid=theme]", theme).await;
        app.wait_for(&format!("html[data-theme={theme}]")).await;
        for tab in TABS {
            app.click(&format!("[data-testid=tab-{tab}]")).await;
            app.wait_for_visible(&format!("#panel-{tab}")).await;
            if tab == "problems" {
                app.wait_for("[data-testid=health-totals]").await;
            }
            app.screenshot(&format!("panel-{tab}-{theme}")).await;
        }
    }
    app.show_tab("preview").await;

    // Dark: the colours as drawn meet WCAG AA (4.5:1 for text), YAML keys included.
    let drawn = app
        .script(
            "const color = (el, what) => el ? getComputedStyle(el)[what] : null;\
             const key = [...document.querySelectorAll('.cm-frontmatter span')].find((s) => s.textContent === 'name');\
             const muted = document.querySelector('[data-testid=library-summary]');\
             return {\
               page: [color(document.body, 'color'), color(document.body, 'backgroundColor')],\
               key: [color(key, 'color'), color(document.querySelector('.cm-editor'), 'backgroundColor')],\
               muted: [color(muted, 'color'), color(document.body, 'backgroundColor')],\
             }",
            vec![],
        )
        .await;
    for (what, pair) in drawn.as_object().unwrap() {
        let fg = rgb(pair[0]
            .as_str()
            .unwrap_or_else(|| panic!("no {what} drawn")));
        let bg = rgb(pair[1].as_str().unwrap());
        let ratio = contrast(fg, bg);
        println!("e2e: dark theme, {what}: {ratio:.2}:1");
        assert!(
            ratio >= 4.5,
            "dark theme, {what}: {ratio:.2}:1 is below 4.5:1 ({pair})"
        );
    }
    assert!(
        luminance(rgb(drawn["page"][1].as_str().unwrap())) < 0.05,
        "the dark theme has a dark background"
    );
    app.screenshot("dark").await;
    app.select("[data-testid=theme]", "system").await;
    app.close().await;
}

/// Whether the element at `css` lies inside the viewport and is what a
/// click at its centre would hit, and what was measured.
async fn reachable(app: &App, css: &str) -> (bool, serde_json::Value) {
    let found = app
        .script(
            "const t = document.querySelector(arguments[0]); if (!t) return [false, 'missing'];\
             const r = t.getBoundingClientRect();\
             const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);\
             const ok = r.left >= 0 && r.right <= window.innerWidth + 0.5 && r.bottom <= window.innerHeight + 0.5 && r.width > 0 && !!hit && t.contains(hit);\
             return [ok, [r.left, r.right, r.bottom, window.innerWidth, window.innerHeight, hit && hit.outerHTML.slice(0, 80)]]",
            vec![css.into()],
        )
        .await;
    (found[0] == serde_json::json!(true), found[1].clone())
}

async fn width_of(app: &App, css: &str) -> u64 {
    let width = app
        .script(
            "return Math.round(document.querySelector(arguments[0]).getBoundingClientRect().width)",
            vec![css.into()],
        )
        .await;
    width.as_u64().unwrap()
}

async fn inspector_width(app: &App) -> u64 {
    width_of(app, "section.inspector").await
}

/// `rgb(r, g, b)` or `rgba(r, g, b, a)` as computed styles give colours.
fn rgb(css: &str) -> [f64; 3] {
    let inner = css
        .split_once('(')
        .and_then(|(_, rest)| rest.strip_suffix(')'))
        .unwrap_or_else(|| panic!("not an rgb() colour: {css}"));
    let parts: Vec<f64> = inner
        .split([',', ' ', '/'])
        .filter(|p| !p.is_empty())
        .map(|p| {
            p.parse()
                .unwrap_or_else(|_| panic!("not an rgb() colour: {css}"))
        })
        .collect();
    [parts[0], parts[1], parts[2]]
}

/// Relative luminance (WCAG 2.x).
fn luminance(color: [f64; 3]) -> f64 {
    let channel = |c: f64| {
        let c = c / 255.0;
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * channel(color[0]) + 0.7152 * channel(color[1]) + 0.0722 * channel(color[2])
}

fn contrast(a: [f64; 3], b: [f64; 3]) -> f64 {
    let (la, lb) = (luminance(a), luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

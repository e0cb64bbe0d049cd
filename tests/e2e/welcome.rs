//! Issue 45's first impression: a first start on the bundled library opens
//! its first skill and greets the author with what to try first; each step
//! takes them there, and the next start does not greet again. The palette
//! shows the welcome on demand.

use fantoccini::key::Key;

use crate::harness::Harness;
use crate::keyboard::{chord, key};

#[test]
fn the_first_start_story() {
    let Some(harness) = Harness::start_first_run() else {
        return;
    };
    harness.block_on(async {
        let app = harness.launch().await;
        app.resize(1360, 860).await;
        app.wait_for_text("[data-testid=welcome]", "Welcome to Hone")
            .await;
        // The library's first skill is open behind it, and named.
        app.wait_for_text("[data-testid=welcome]", "accessibility-review is open")
            .await;
        app.wait_for_text("[data-testid=welcome-query]", "Query")
            .await;
        app.screenshot("welcome").await;

        // A step closes the welcome and shows its tab.
        app.click("[data-testid=welcome-query]").await;
        app.wait_for_gone("[data-testid=welcome]").await;
        app.wait_for("[data-testid=query-input]").await;

        // Greeted once per profile: a second start is quiet.
        app.reload().await;
        app.wait_for("[data-skill=accessibility-review]").await;
        app.wait_for("[data-testid=status]").await;
        assert!(app.text_of("[data-testid=welcome]").await.is_none());

        // The palette shows it on demand.
        app.type_keys(&chord(&[Key::Control, Key::Shift], "p"))
            .await;
        app.wait_for_focus_in("[data-testid=palette-input]").await;
        app.type_keys("welcome").await;
        app.type_keys(&key(Key::Enter)).await;
        app.wait_for_text("[data-testid=welcome]", "Then try").await;
        app.close().await;
    });
}

//! The machinery of the end-to-end tests: a private X display, `tauri-driver`
//! on free ports, a scratch copy of the bundled library and a clean settings
//! folder, and a small WebDriver vocabulary with patient waits.
//!
//! Only processes this harness started are stopped, by their own handles.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::elements::Element;
use fantoccini::key::Key;
use fantoccini::{Client, ClientBuilder, Locator};

/// How long a step may take before the test fails (WebKit under Xvfb on a
/// busy two-core machine can be slow; a timeout here is a real failure).
const STEP_TIMEOUT: Duration = Duration::from_secs(20);

/// How long Xvfb and tauri-driver may take to come up. Starting a process is
/// the step a loaded machine slows most (the other core busy compiling, the
/// page cache cold), and a failure here says nothing about the app: wait
/// long, but fail at once when the process has died.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(120);

/// How long one request for a WebDriver session may go unanswered before it
/// is asked again (within [`STARTUP_TIMEOUT`]).
const SESSION_ATTEMPT: Duration = Duration::from_secs(45);

/// How WebKit paints the window under Xvfb, which has no GPU.
#[derive(Clone, Copy)]
pub enum Painting {
    /// WebKit's GL compositing (on a software rasteriser here), which the app
    /// uses only when asked (`WEBKIT_DISABLE_COMPOSITING_MODE=0`).
    Composited,
    /// Compositing off, as the app paints by default: frames are not paced by
    /// the rasteriser, so the in-window timings are the engine's and the UI's.
    /// WebKitWebDriver's screenshot of some pages never answers in this mode
    /// (the import preview), so the stories ask for GL compositing.
    Plain,
}

pub struct Harness {
    // Dropped in this order: the driver (and the app's WebKitWebDriver)
    // before the display it draws on.
    _driver: Process,
    _xvfb: Process,
    driver_port: u16,
    library: PathBuf,
    _scratch: tempfile::TempDir,
    _config: tempfile::TempDir,
    _webview_data: tempfile::TempDir,
    screenshots: PathBuf,
}

pub struct App {
    client: Client,
    screenshots: PathBuf,
}

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn find_tool(name: &str) -> Option<PathBuf> {
    let cargo_bin = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .map(|home| home.join("bin"));
    std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .chain(cargo_bin)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A child process that is stopped (see [`stop`]) when dropped, also when a
/// test fails while setting up: a failed start never leaves it running.
struct Process(Child);

impl Drop for Process {
    fn drop(&mut self) {
        stop(&mut self.0);
    }
}

/// Waits until `ready`, failing when `process` exits first or after
/// [`STARTUP_TIMEOUT`].
fn wait_for_start(what: &str, process: &mut Process, mut ready: impl FnMut() -> bool) {
    let started = Instant::now();
    while !ready() {
        if let Ok(Some(status)) = process.0.try_wait() {
            panic!("{what} exited ({status}) before it was ready");
        }
        assert!(
            started.elapsed() < STARTUP_TIMEOUT,
            "{what} was not ready after {} s",
            STARTUP_TIMEOUT.as_secs()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    println!("e2e: {what} ready in {} ms", started.elapsed().as_millis());
}

/// Starts Xvfb on a display number it chooses itself, and returns it once
/// the server accepts connections. With `-displayfd` the server takes the
/// first free number and writes it when it listens, so tests starting their
/// displays at once never race for a number, and readiness does not hang on
/// the socket file: where two servers create `/tmp/.X11-unix` at the same
/// moment, one may listen only on its abstract socket (seen on a fresh
/// machine), which clients use first anyway.
fn start_display(xvfb: &Path) -> (Process, u32) {
    let mut child = Command::new(xvfb)
        .args([
            "-displayfd",
            "1",
            "-screen",
            "0",
            "1600x1000x24",
            "-nolisten",
            "tcp",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("Xvfb starts");
    let stdout = child
        .stdout
        .take()
        .expect("Xvfb's standard output is piped");
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut reader = std::io::BufReader::new(stdout);
        let mut line = String::new();
        if std::io::BufRead::read_line(&mut reader, &mut line).is_ok() {
            let _ = sender.send(line);
        }
        // Read on, so that the server never writes into a closed pipe.
        let _ = std::io::copy(&mut reader, &mut std::io::sink());
    });
    let mut process = Process(child);
    let mut display = None;
    wait_for_start("the X display", &mut process, || {
        if let Ok(line) = receiver.try_recv() {
            let number = line
                .trim()
                .parse()
                .unwrap_or_else(|_| panic!("Xvfb wrote {line:?} where its display number belongs"));
            display = Some(number);
        }
        display.is_some()
    });
    (process, display.expect("the display number, once ready"))
}

impl Harness {
    /// Runs a story's future to completion on a runtime of its own: each
    /// test drives one window from one thread.
    pub fn block_on<F: std::future::Future>(&self, story: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a tokio runtime")
            .block_on(story)
    }

    /// Starts Xvfb and tauri-driver. A missing tool fails the test, unless
    /// the caller opted out with `HONE_E2E=0`: then it is skipped with a
    /// message and `None`.
    pub fn start_or_skip() -> Option<Harness> {
        Harness::start_with(None, Painting::Composited)
    }

    /// Like [`Harness::start_or_skip`], but opens `library` as it is (it is
    /// only read) instead of a scratch copy of the bundled one.
    pub fn start_with(library: Option<&Path>, painting: Painting) -> Option<Harness> {
        Harness::start(library, painting, false, &[])
    }

    /// Like [`Harness::start_with`], with `vars` set for the app (such as
    /// a scratch `XDG_CACHE_HOME` where no model is installed).
    pub fn start_with_vars(library: Option<&Path>, vars: &[(&str, &Path)]) -> Option<Harness> {
        Harness::start(library, Painting::Composited, false, vars)
    }

    /// Like [`Harness::start_or_skip`], but as a first start: the app may
    /// greet (every other story starts it with `HONE_NO_FIRST_RUN`).
    pub fn start_first_run() -> Option<Harness> {
        Harness::start(None, Painting::Composited, true, &[])
    }

    fn start(
        library: Option<&Path>,
        painting: Painting,
        first_run: bool,
        vars: &[(&str, &Path)],
    ) -> Option<Harness> {
        let required = std::env::var("HONE_E2E").map_or(true, |v| v != "0");
        let tools: Vec<_> = ["tauri-driver", "WebKitWebDriver", "Xvfb"]
            .into_iter()
            .map(|name| (name, find_tool(name)))
            .collect();
        let mut missing: Vec<String> = tools
            .iter()
            .filter(|(_, p)| p.is_none())
            .map(|(n, _)| (*n).to_owned())
            .collect();
        if !repo_root().join("ui/dist/index.html").is_file() {
            missing.push("ui/dist (run `npm --prefix ui run build`)".to_owned());
        }
        if !missing.is_empty() {
            let message = format!(
                "end-to-end tests need {}; run scripts/setup-app.sh",
                missing.join(", ")
            );
            assert!(!required, "{message} (or set HONE_E2E=0 to skip them)");
            eprintln!("HONE_E2E=0: skipping the end-to-end tests: {message}");
            return None;
        }
        let tool = |name: &str| {
            tools
                .iter()
                .find(|(n, _)| *n == name)
                .unwrap()
                .1
                .clone()
                .unwrap()
        };

        let (xvfb, display) = start_display(&tool("Xvfb"));

        let scratch = tempfile::tempdir().unwrap();
        let library = match library {
            Some(given) => given.to_path_buf(),
            None => {
                copy_dir(&repo_root().join("skills"), scratch.path());
                scratch.path().to_path_buf()
            }
        };
        let config = tempfile::tempdir().unwrap();
        // The webview's own storage (the window's remembered layout and
        // theme) is private to each run: one test's choices never leak into another's.
        let webview_data = tempfile::tempdir().unwrap();
        let driver_port = free_port();
        let mut driver = Command::new(tool("tauri-driver"));
        // The app paints on the CPU unless asked for WebKit's GL compositing
        // (src-tauri/src/painting.rs): the stories ask.
        driver.env(
            "WEBKIT_DISABLE_COMPOSITING_MODE",
            match painting {
                Painting::Composited => "0",
                Painting::Plain => "1",
            },
        );
        if !first_run {
            driver.env("HONE_NO_FIRST_RUN", "1");
        }
        for (name, value) in vars {
            driver.env(name, value);
        }
        let driver = driver
            .args(["--port", &driver_port.to_string()])
            .args(["--native-port", &free_port().to_string()])
            .arg("--native-driver")
            .arg(tool("WebKitWebDriver"))
            .env("DISPLAY", format!(":{display}"))
            .env("HONE_LIBRARY", &library)
            .env("HONE_CONFIG_DIR", config.path())
            .env("XDG_DATA_HOME", webview_data.path())
            // A plain, predictable theme and no accessibility bus under Xvfb.
            .env("GTK_THEME", "Adwaita")
            .env("NO_AT_BRIDGE", "1")
            .env_remove("WAYLAND_DISPLAY")
            .stdout(Stdio::null())
            .spawn()
            .expect("tauri-driver starts");
        let mut driver = Process(driver);
        wait_for_start("tauri-driver", &mut driver, || {
            std::net::TcpStream::connect(("127.0.0.1", driver_port)).is_ok()
        });
        // The tracked pictures in docs/ change only when asked for, not on every run.
        let screenshots = if std::env::var("HONE_UPDATE_SCREENSHOTS").is_ok_and(|v| v == "1") {
            repo_root().join("docs/screenshots")
        } else {
            PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("e2e-screenshots")
        };
        std::fs::create_dir_all(&screenshots).unwrap();
        Some(Harness {
            _driver: driver,
            _xvfb: xvfb,
            driver_port,
            library,
            _scratch: scratch,
            _config: config,
            _webview_data: webview_data,
            screenshots,
        })
    }

    pub fn library(&self) -> &Path {
        &self.library
    }

    /// Skills of the scratch library (folders holding a `SKILL.md`).
    pub fn skill_count(&self) -> usize {
        std::fs::read_dir(self.library())
            .unwrap()
            .filter_map(Result::ok)
            .filter(|e| e.path().join("SKILL.md").is_file())
            .count()
    }

    /// Skills anywhere under the library (collections nest them).
    pub fn skill_count_deep(&self) -> usize {
        fn walk(dir: &Path) -> usize {
            let Ok(entries) = std::fs::read_dir(dir) else {
                return 0;
            };
            entries
                .filter_map(Result::ok)
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                .map(|e| usize::from(e.path().join("SKILL.md").is_file()) + walk(&e.path()))
                .sum()
        }
        walk(self.library())
    }

    /// Starts the app in a new window.
    pub async fn launch(&self) -> App {
        let mut capabilities = serde_json::Map::new();
        capabilities.insert(
            "tauri:options".into(),
            serde_json::json!({ "application": env!("CARGO_BIN_EXE_hone-app") }),
        );
        // tauri-driver accepts connections before the WebKitWebDriver it starts
        // is listening, so a first attempt can be cut off: retry, for as long
        // as a process may take to start on a loaded machine. An app that dies
        // as it starts (GTK once failed to open the display) leaves the
        // session request unanswered, so no attempt may wait for ever.
        let url = format!("http://127.0.0.1:{}", self.driver_port);
        let started = Instant::now();
        let client = loop {
            let connector = hyper_util::client::legacy::connect::HttpConnector::new();
            let mut builder = ClientBuilder::new(connector);
            builder.capabilities(capabilities.clone());
            let attempt = builder.connect(&url);
            let left = STARTUP_TIMEOUT.saturating_sub(started.elapsed());
            let failure = match tokio::time::timeout(left.min(SESSION_ATTEMPT), attempt).await {
                Ok(Ok(client)) => break client,
                Ok(Err(err)) => err.to_string(),
                Err(_) => format!("no answer within {SESSION_ATTEMPT:?}"),
            };
            if started.elapsed() >= STARTUP_TIMEOUT {
                panic!("a WebDriver session with the app: {failure}");
            }
            eprintln!("WebDriver session not ready ({failure}); retrying");
            tokio::time::sleep(Duration::from_millis(500)).await;
        };
        App {
            client,
            screenshots: self.screenshots.clone(),
        }
    }
}

/// Asks `child` to end, and kills it if it has not within a few seconds. A
/// kill outright would orphan the WebKitWebDriver that tauri-driver started.
fn stop(child: &mut Child) {
    if let Some(pid) = i32::try_from(child.id())
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    {
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
    }
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        if !matches!(child.try_wait(), Ok(None)) {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// Awaits one WebDriver exchange, failing the test if it gets no answer: a
/// page stuck in a native dialog or a wedged WebKit must not hang the run.
async fn answered<T>(what: impl std::fmt::Display, exchange: impl Future<Output = T>) -> T {
    tokio::time::timeout(STEP_TIMEOUT, exchange)
        .await
        .unwrap_or_else(|_| panic!("the WebDriver gave no answer to {what} in {STEP_TIMEOUT:?}"))
}

impl App {
    async fn find(&self, css: &str) -> Option<Element> {
        answered(
            format_args!("find `{css}`"),
            self.client.find(Locator::Css(css)),
        )
        .await
        .ok()
    }

    pub async fn wait_for(&self, css: &str) -> Element {
        let deadline = Instant::now() + STEP_TIMEOUT;
        loop {
            if let Some(element) = self.find(css).await {
                return element;
            }
            self.fail_after(deadline, &format!("`{css}` to appear"))
                .await;
        }
    }

    /// Waits for `css` to match an element that is shown (not in a hidden tab).
    pub async fn wait_for_visible(&self, css: &str) -> Element {
        let deadline = Instant::now() + STEP_TIMEOUT;
        loop {
            if let Some(element) = self.find(css).await
                && answered("is_displayed", element.is_displayed())
                    .await
                    .unwrap_or(false)
            {
                return element;
            }
            self.fail_after(deadline, &format!("`{css}` to be shown"))
                .await;
        }
    }

    /// Waits up to `timeout` for `css` to match something whose text contains `needle`.
    pub async fn wait_for_text_within(&self, css: &str, needle: &str, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(element) = self.find(css).await
                && answered("text", element.text())
                    .await
                    .is_ok_and(|t| t.contains(needle))
            {
                return;
            }
            self.fail_after(deadline, &format!("`{css}` to contain {needle:?}"))
                .await;
        }
    }

    /// The value of `attribute` on the first element matching `css`, if any.
    pub async fn attribute_of(&self, css: &str, attribute: &str) -> Option<String> {
        answered("attr", self.find(css).await?.attr(attribute))
            .await
            .ok()?
    }

    /// Whether the first element matching `css` is disabled (itself or by
    /// its fieldset).
    pub async fn is_disabled(&self, css: &str) -> bool {
        self.script(
            "return document.querySelector(arguments[0])?.matches(':disabled') ?? false",
            vec![serde_json::Value::from(css)],
        )
        .await
            == serde_json::Value::Bool(true)
    }

    /// The text of the first element matching `css`, if any.
    pub async fn text_of(&self, css: &str) -> Option<String> {
        answered("text", self.find(css).await?.text()).await.ok()
    }

    pub async fn wait_for_gone(&self, css: &str) {
        self.wait_for_gone_within(css, STEP_TIMEOUT).await;
    }

    /// Waits up to `timeout` for `css` to match nothing (for the steps that
    /// legitimately take long, such as embedding a large library).
    pub async fn wait_for_gone_within(&self, css: &str, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        while self.find(css).await.is_some() {
            self.fail_after(deadline, &format!("`{css}` to go away"))
                .await;
        }
    }

    pub async fn wait_for_count(&self, css: &str, count: usize) {
        let deadline = Instant::now() + STEP_TIMEOUT;
        loop {
            let found = answered(
                format_args!("find all `{css}`"),
                self.client.find_all(Locator::Css(css)),
            )
            .await
            .map_or(0, |e| e.len());
            if found == count {
                return;
            }
            self.fail_after(deadline, &format!("{count} of `{css}` (have {found})"))
                .await;
        }
    }

    pub async fn wait_for_text(&self, css: &str, needle: &str) {
        self.wait_for_text_within(css, needle, STEP_TIMEOUT).await;
    }

    /// Sleeps a little, or saves a screenshot and fails after `deadline`.
    async fn fail_after(&self, deadline: Instant, what: &str) {
        if Instant::now() > deadline {
            self.screenshot("failure").await;
            panic!(
                "timed out waiting for {what} (see {})",
                self.screenshots.join("failure.png").display()
            );
        }
        tokio::time::sleep(Duration::from_millis(40)).await;
    }

    /// Waits for `css` to be shown and enabled, as a user waits for a
    /// button to light up: a click on a disabled one is silently lost (a run
    /// button is briefly disabled while the watcher re-reads a suite).
    pub async fn wait_for_clickable(&self, css: &str) -> Element {
        let deadline = Instant::now() + STEP_TIMEOUT;
        loop {
            let element = self.wait_for_visible(css).await;
            if answered("is_enabled", element.is_enabled())
                .await
                .unwrap_or(false)
            {
                return element;
            }
            self.fail_after(deadline, &format!("`{css}` to be enabled"))
                .await;
        }
    }

    pub async fn click(&self, css: &str) {
        let element = self.wait_for_clickable(css).await;
        self.scroll_to(css).await;
        answered(format_args!("click `{css}`"), element.click())
            .await
            .unwrap_or_else(|e| panic!("click {css}: {e}"));
    }

    /// Shows the inspector's `tab`, clicking again if a click made while the
    /// window was still settling was lost (seen on a loaded machine).
    pub async fn show_tab(&self, tab: &str) {
        let css = format!("[data-testid=tab-{tab}]");
        for _ in 0..20 {
            self.click(&css).await;
            if self.attribute_of(&css, "aria-selected").await.as_deref() == Some("true") {
                return;
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
        panic!("the {tab} tab does not open");
    }

    /// Puts the caret at the end of the editor line containing `needle`.
    /// CodeMirror wraps long lines and End stops at each wrap point first, so
    /// End is pressed once per visual row (a few presses past the end are harmless).
    /// The line is scrolled into view first, as a reader would: the
    /// frontmatter does not wrap, so the text may be scrolled sideways.
    pub async fn click_line_end(&self, needle: &str) {
        let lines = answered(
            "find the editor lines",
            self.client.find_all(Locator::Css(".cm-line")),
        )
        .await
        .unwrap();
        for line in lines {
            if answered("text", line.text())
                .await
                .is_ok_and(|t| t.contains(needle))
            {
                let element = serde_json::to_value(&line).unwrap();
                self.script(
                    "arguments[0].scrollIntoView({ block: 'nearest', inline: 'start' })",
                    vec![element],
                )
                .await;
                if let Err(e) = answered("click an editor line", line.click()).await {
                    self.screenshot("failure").await;
                    panic!(
                        "click the editor line with {needle:?}: {e} (see {})",
                        self.screenshots.join("failure.png").display()
                    );
                }
                let end = String::from(char::from(Key::End));
                self.type_keys(&end.repeat(4)).await;
                return;
            }
        }
        panic!("no editor line contains {needle:?}");
    }

    /// Types into whatever has the focus.
    pub async fn type_keys(&self, keys: &str) {
        let focused = answered("active element", self.client.active_element())
            .await
            .unwrap();
        answered(format_args!("keys {keys:?}"), focused.send_keys(keys))
            .await
            .unwrap();
    }

    /// As a user scrolls to what they click: an element half under a panel's
    /// edge would otherwise take the click on what covers it.
    async fn scroll_to(&self, css: &str) {
        let script = "document.querySelector(arguments[0])?.scrollIntoView({ block: 'nearest' })";
        answered(
            format_args!("scroll to `{css}`"),
            self.client.execute(script, vec![css.into()]),
        )
        .await
        .unwrap();
    }

    pub async fn clear_and_type(&self, css: &str, text: &str) {
        let field = self.wait_for_visible(css).await;
        self.scroll_to(css).await;
        answered(format_args!("click `{css}`"), field.click())
            .await
            .unwrap();
        let select_all = format!("{}a{}", char::from(Key::Control), char::from(Key::Control));
        let backspace = String::from(char::from(Key::Backspace));
        // WebDriver refuses empty keys: clearing is the first two steps.
        for keys in [select_all.as_str(), &backspace, text]
            .into_iter()
            .filter(|k| !k.is_empty())
        {
            answered(
                format_args!("keys {keys:?} in `{css}`"),
                field.send_keys(keys),
            )
            .await
            .unwrap();
        }
    }

    /// Chooses `value` in the `<select>` at `css`, as a user's pick would
    /// (WebKitWebDriver cannot click native option lists).
    pub async fn select(&self, css: &str, value: &str) {
        self.wait_for(css).await;
        let script = "const el = document.querySelector(arguments[0]);\
            if (![...el.options].some((o) => o.value === arguments[1])) return false;\
            el.value = arguments[1];\
            el.dispatchEvent(new Event('change', { bubbles: true }));\
            return true;";
        let found = answered(
            format_args!("select {value:?} in `{css}`"),
            self.client.execute(script, vec![css.into(), value.into()]),
        )
        .await
        .unwrap();
        assert_eq!(
            found,
            serde_json::Value::Bool(true),
            "{css} has no option {value}"
        );
    }

    /// Scrolls the element at `css` to its end, as a user browsing a list would.
    pub async fn scroll_to_end(&self, css: &str) {
        self.wait_for(css).await;
        let script = "const el = document.querySelector(arguments[0]);\
            el.scrollTop = el.scrollHeight;\
            el.dispatchEvent(new Event('scroll'));";
        answered(
            format_args!("scroll `{css}`"),
            self.client.execute(script, vec![css.into()]),
        )
        .await
        .unwrap();
    }

    /// Reloads the page: the window starts over (the engine's session and
    /// the files stay), so one story can check several things from a clean slate.
    pub async fn reload(&self) {
        answered("reload", self.client.refresh()).await.unwrap();
        // Started again once the first skill is open and the banner is gone.
        self.wait_for("[data-testid=current-skill]").await;
        self.wait_for_gone(".banner[role=status]").await;
    }

    /// Runs `script` in the page and returns its value.
    pub async fn script(&self, script: &str, args: Vec<serde_json::Value>) -> serde_json::Value {
        answered(
            format_args!("script {script:?}"),
            self.client.execute(script, args),
        )
        .await
        .unwrap_or_else(|e| panic!("script {script:?}: {e}"))
    }

    /// The live `value` of the form control at `css` (the attribute keeps the first one).
    pub async fn value_of(&self, css: &str) -> String {
        self.wait_for(css).await;
        let value = self
            .script(
                "return document.querySelector(arguments[0]).value",
                vec![css.into()],
            )
            .await;
        value.as_str().unwrap_or_default().to_owned()
    }

    /// Waits until the live value of the form control at `css` satisfies `ok`, and returns it.
    pub async fn wait_for_value(&self, css: &str, ok: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + STEP_TIMEOUT;
        loop {
            let value = self.value_of(css).await;
            if ok(&value) {
                return value;
            }
            self.fail_after(deadline, &format!("the value of `{css}` (now {value:?})"))
                .await;
        }
    }

    /// Whether the focused element is inside the element at `css`.
    pub async fn focus_is_in(&self, css: &str) -> bool {
        let inside = self
            .script(
                "const a = document.activeElement; return !!(a && a.closest(arguments[0]));",
                vec![css.into()],
            )
            .await;
        inside.as_bool().unwrap_or(false)
    }

    /// Waits until the focus is inside the element at `css` (a dialog takes
    /// it once it is shown, a moment after it appears).
    pub async fn wait_for_focus_in(&self, css: &str) {
        let deadline = Instant::now() + STEP_TIMEOUT;
        while !self.focus_is_in(css).await {
            self.fail_after(deadline, &format!("the focus to be in `{css}`"))
                .await;
        }
    }

    /// Enters the preview frame, runs `step` there, and comes back out.
    pub async fn in_preview_frame<T>(&self, step: impl AsyncFnOnce(&Client) -> T) -> T {
        let frame = self.wait_for("[data-testid=preview-frame]").await;
        answered("enter the preview frame", frame.enter_frame())
            .await
            .unwrap();
        let out = step(&self.client).await;
        answered("leave the preview frame", self.client.enter_parent_frame())
            .await
            .unwrap();
        out
    }

    pub async fn editor_text(&self) -> String {
        let text = answered(
            "the editor's text",
            self.client.execute(
                "return document.querySelector('.cm-content').innerText",
                vec![],
            ),
        )
        .await
        .unwrap();
        text.as_str().unwrap_or_default().to_owned()
    }

    /// Calls an app command straight over IPC, as a compromised page could,
    /// bypassing the UI: the value on success, the error text on refusal.
    pub async fn invoke(
        &self,
        command: &str,
        args: serde_json::Value,
    ) -> Result<serde_json::Value, String> {
        const SCRIPT: &str = "const done = arguments[arguments.length - 1];\
            window.__TAURI_INTERNALS__.invoke(arguments[0], arguments[1])\
            .then((ok) => done({ ok }), (err) => done({ err }));";
        let outcome = answered(
            format_args!("invoke {command}"),
            self.client
                .execute_async(SCRIPT, vec![command.into(), args]),
        )
        .await
        .unwrap_or_else(|e| panic!("invoke {command}: {e}"));
        match outcome.get("err") {
            // A command's `CommandError` is an object; Tauri's own refusals are strings.
            Some(err) => Err(err
                .get("message")
                .unwrap_or(err)
                .as_str()
                .unwrap_or_default()
                .to_owned()),
            None => Ok(outcome.get("ok").cloned().unwrap_or_default()),
        }
    }

    /// The natural width of the first image in the preview frame, once it has
    /// loaded (0 if it never does).
    pub async fn preview_image_width(&self) -> u64 {
        let started = Instant::now();
        while started.elapsed() < STEP_TIMEOUT {
            let frame = self.wait_for("[data-testid=preview-frame]").await;
            if answered("enter the preview frame", frame.enter_frame())
                .await
                .is_ok()
            {
                let width = answered("the preview image", self
                    .client
                    .execute(
                        "const img = document.querySelector('img'); return img && img.complete ? img.naturalWidth : 0;",
                        vec![],
                    ))
                    .await
                    .ok()
                    .and_then(|v| v.as_u64())
                    .unwrap_or(0);
                answered("leave the preview frame", self.client.enter_parent_frame())
                    .await
                    .unwrap();
                if width > 0 {
                    return width;
                }
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        0
    }

    /// Saves a picture of the window. A screenshot is a record, not a check:
    /// one that fails or gets no answer is reported and the test goes on (or
    /// fails with the step it was recording).
    pub async fn screenshot(&self, name: &str) {
        match tokio::time::timeout(STEP_TIMEOUT, self.client.screenshot()).await {
            Ok(Ok(png)) => {
                std::fs::write(self.screenshots.join(format!("{name}.png")), png).unwrap()
            }
            Ok(Err(e)) => eprintln!("e2e: no screenshot {name}: {e}"),
            Err(_) => eprintln!("e2e: no screenshot {name}: no answer in {STEP_TIMEOUT:?}"),
        }
    }

    /// Resizes the window (its outer size; under Xvfb there is no frame) and
    /// returns the page's size once it has followed and settled:
    /// `[innerWidth, innerHeight]`. A window that grows is waited for until
    /// it is larger than before (it is never larger than asked), then until
    /// two readings 100 ms apart agree, so the layout has caught up.
    pub async fn resize(&self, width: u32, height: u32) -> (u64, u64) {
        let read = || async {
            let size = self
                .script("return [window.innerWidth, window.innerHeight]", vec![])
                .await;
            (size[0].as_u64().unwrap(), size[1].as_u64().unwrap())
        };
        let (old_w, old_h) = read().await;
        answered(
            format_args!("resize to {width}x{height}"),
            self.client.set_window_size(width, height),
        )
        .await
        .unwrap_or_else(|e| panic!("resize to {width}x{height}: {e}"));
        let (width, height) = (u64::from(width), u64::from(height));
        let grows = width > old_w || height > old_h;
        let deadline = Instant::now() + STEP_TIMEOUT;
        let mut last = None;
        loop {
            let (w, h) = read().await;
            let fits = w <= width && h <= height;
            let followed = !grows || w > old_w || h > old_h;
            if fits && followed && last == Some((w, h)) || Instant::now() > deadline {
                return (w, h);
            }
            last = Some((w, h));
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    pub async fn close(self) {
        let _ = tokio::time::timeout(STEP_TIMEOUT, self.client.close()).await;
    }
}

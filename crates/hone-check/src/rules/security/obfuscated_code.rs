//! HS907 `obfuscated-code`: its documentation, what `hone rule HS907`
//! prints; the detector is `security::detect::obfuscated_code`.

crate::rules::rule_doc! {
    /// Code hidden from the reader: an encoded blob decoded and run
    /// (`echo … | base64 -d | sh`, `exec(base64.b64decode(…))`,
    /// `eval(atob(…))`, `powershell -EncodedCommand …`), or a string built
    /// piece by piece and handed to `eval`/`exec` (`chr()` joins,
    /// `String.fromCharCode`, reversed strings). Nothing a skill does needs
    /// hiding from the person installing it.
    ///
    /// Hone decodes what it can (base64, hex, PowerShell's UTF-16 base64) and
    /// analyses the payload with the other rules: the finding shows what it
    /// decodes to, and a payload that downloads, exfiltrates or persists is
    /// reported as such at the blob. A long base64 string that decodes to
    /// data, an image or plain prose (test fixtures) is not reported;
    /// decoding and running is critical; `eval` of a string built at run
    /// time is high; `exec` of text that is only read is low.
    ///
    /// ```python
    /// exec(base64.b64decode("aW1wb3J0IG9zOyBvcy5zeXN0ZW0oJ2N1cmwgLi4uJyk="))
    /// ```
}

//! The device-plugin config file (`version: v1`), decoded the way k8s-device-plugin v0.20.0
//! decodes it, with the plugin's own error texts and a file:line location for each.
//!
//! The plugin converts YAML to JSON and runs `encoding/json` over it (see [`super::yaml`]), so
//! the rules here follow Go's decoder, not serde's:
//! - struct fields match keys exactly or case-insensitively, in sorted key order; unknown keys
//!   are ignored (the model says so, as an info diagnostic, because `sharng:` silently means
//!   "no sharing");
//! - a type mismatch in a plain struct field is remembered and decoding goes on, but an error
//!   from one of the plugin's hand-written decoders (`sharing.timeSlicing`, `sharing.mps`, each
//!   resource, `devices`, resource names) stops decoding at once;
//! - the version is checked only after decoding (`unknown version: v2`).
//!
//! After parsing, [`finalize`] applies what `NewConfig` and `DisableResourceNamingInConfig` do:
//! the MPS `failRequestsGreaterThanOne` default, the operator's `MIG_STRATEGY`, and the
//! warnings for `rename`, `devices` and `resources`, which v0.20.0 parses and then ignores.

use serde::{Deserialize, Serialize};

use super::version::PluginVersion;
use super::yaml::{self, Json, Locator, PathSeg};
use crate::diagnostic::{Diagnostic, Severity, Span};

/// The plugin's prefix for every resource name (`RESOURCE_PREFIX` unset).
pub const RESOURCE_PREFIX: &str = "nvidia.com";
/// `MaxResourceNameLength` in `api/config/v1/consts.go`.
pub const MAX_RESOURCE_NAME_LENGTH: usize = 63;
/// `DefaultSharedResourceNameSuffix`.
pub const SHARED_SUFFIX: &str = ".shared";
/// How a parse error surfaces in the plugin's log before the process exits.
pub const PARSE_ERROR_PREFIX: &str =
    "error starting plugins: unable to load config: unable to finalize config: unable to parse config file: error parsing config file: ";
/// How a flag validation error surfaces before the process exits.
pub const FLAGS_ERROR_PREFIX: &str = "error starting plugins: unable to validate flags: ";

/// `flags.migStrategy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MigStrategy {
    None,
    Single,
    Mixed,
}

impl MigStrategy {
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "none" => Some(MigStrategy::None),
            "single" => Some(MigStrategy::Single),
            "mixed" => Some(MigStrategy::Mixed),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            MigStrategy::None => "none",
            MigStrategy::Single => "single",
            MigStrategy::Mixed => "mixed",
        }
    }
}

/// The sharing strategy of a config (`Sharing.SharingStrategy()`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SharingStrategy {
    #[serde(rename = "none")]
    None,
    #[serde(rename = "time-slicing")]
    TimeSlicing,
    #[serde(rename = "mps")]
    Mps,
}

impl SharingStrategy {
    /// The value of the `nvidia.com/gpu.sharing-strategy` label.
    pub fn as_str(self) -> &'static str {
        match self {
            SharingStrategy::None => "none",
            SharingStrategy::TimeSlicing => "time-slicing",
            SharingStrategy::Mps => "mps",
        }
    }
}

/// `devices:` of a replicated resource. v0.20.0 resets anything but `all` to `all`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReplicatedDevices {
    All,
    Count(i64),
    List(Vec<String>),
}

/// One entry of `sharing.<strategy>.resources`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplicatedResource {
    /// Fully qualified (`nvidia.com/` prepended when missing).
    pub name: String,
    /// Fully qualified; after [`finalize`] only ever `<name>.shared` (renameByDefault).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rename: Option<String>,
    pub devices: ReplicatedDevices,
    /// At least 2 (the parser rejects less).
    pub replicas: i64,
}

impl ReplicatedResource {
    /// The name the resource is advertised under.
    pub fn advertised_name(&self) -> &str {
        self.rename.as_deref().unwrap_or(&self.name)
    }
}

/// `sharing.timeSlicing` or `sharing.mps`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplicatedResources {
    pub rename_by_default: bool,
    /// `None` = omitted. For MPS, [`finalize`] turns an omitted value into `true`.
    pub fail_requests_greater_than_one: Option<bool>,
    pub resources: Vec<ReplicatedResource>,
}

impl ReplicatedResources {
    /// `isReplicated()`: some resource has more than one replica.
    pub fn is_replicated(&self) -> bool {
        self.resources.iter().any(|r| r.replicas > 1)
    }
}

/// `sharing`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sharing {
    /// `None` when the file has no `sharing.timeSlicing`.
    pub time_slicing: Option<ReplicatedResources>,
    /// `None` when the file has no `sharing.mps` (or the plugin predates MPS).
    pub mps: Option<ReplicatedResources>,
}

impl Sharing {
    /// MPS if `sharing.mps` replicates anything, else time-slicing if it does, else none.
    /// So with both set, MPS wins silently, as in the plugin.
    pub fn strategy(&self) -> SharingStrategy {
        if self.mps.as_ref().is_some_and(ReplicatedResources::is_replicated) {
            SharingStrategy::Mps
        } else if self.time_slicing.as_ref().is_some_and(ReplicatedResources::is_replicated) {
            SharingStrategy::TimeSlicing
        } else {
            SharingStrategy::None
        }
    }

    /// `ReplicatedResources()`: MPS whenever `sharing.mps` is present, else time-slicing.
    pub fn replicated(&self) -> Option<&ReplicatedResources> {
        self.mps.as_ref().or(self.time_slicing.as_ref())
    }

    /// The replicated entry for a resource name, if the active strategy has one.
    pub fn replication_for(&self, resource: &str) -> Option<&ReplicatedResource> {
        self.replicated()?.resources.iter().find(|r| r.name == resource)
    }
}

/// The `flags` the slot calculator uses (the others are parsed by the plugin for other things).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Flags {
    pub mig_strategy: Option<String>,
    pub fail_on_init_error: Option<bool>,
    pub mps_root: Option<String>,
    pub device_list_strategy: Option<Vec<String>>,
    pub device_id_strategy: Option<String>,
    pub shared_devices_allocation_policy: Option<String>,
}

/// A parsed device-plugin config file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DevicePluginConfig {
    pub version: String,
    pub flags: Flags,
    pub sharing: Sharing,
    /// `resources.gpus` / `resources.mig` were given (v0.20.0 ignores them with a warning).
    pub resources_customised: bool,
}

impl Default for DevicePluginConfig {
    fn default() -> Self {
        DevicePluginConfig {
            version: "v1".into(),
            flags: Flags::default(),
            sharing: Sharing::default(),
            resources_customised: false,
        }
    }
}

/// What the deployment sets outside the file: the GPU Operator's env on the plugin
/// container. Env beats the file (README: flag > env > file).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Deployment {
    /// `MIG_STRATEGY` (the GPU Operator sets it from ClusterPolicy `mig.strategy`).
    pub mig_strategy: Option<String>,
    /// `MPS_ROOT`; the Helm chart and the operator set `/run/nvidia/mps`.
    pub mps_root: Option<String>,
}

impl Default for Deployment {
    fn default() -> Self {
        Deployment { mig_strategy: None, mps_root: Some("/run/nvidia/mps".into()) }
    }
}

/// A config the plugin refused: the inner text, where it points, and the full log line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfigError {
    /// The innermost text, e.g. `unmarshal error: error unmarshaling JSON: while decoding JSON: no replicas specified`.
    pub inner: String,
    pub span: Span,
}

impl ConfigError {
    /// The line the plugin logs before exiting.
    pub fn startup_error(&self) -> String {
        format!("{PARSE_ERROR_PREFIX}{}", self.inner)
    }
}

/// The result of reading a config file: the config (unless the plugin would refuse it) and
/// every diagnostic, errors and warnings alike, each with its location.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadedConfig {
    pub config: Option<DevicePluginConfig>,
    pub error: Option<ConfigError>,
    /// The plugin's own warnings, verbatim (e.g. the `rename` one), in log order.
    pub warnings: Vec<String>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Parses a config file named `file` as plugin `version` would, then [`finalize`]s it.
pub fn load(file: &str, text: &str, version: PluginVersion) -> LoadedConfig {
    let locator = Locator::new(text);
    let mut out = LoadedConfig { config: None, error: None, warnings: Vec::new(), diagnostics: Vec::new() };
    let json = match yaml::load_with_duplicates(text) {
        Ok((json, duplicates)) => {
            // go-yaml keeps the last value silently; the model says which key was repeated.
            for path in duplicates {
                let key = path
                    .iter()
                    .map(|p| match p {
                        PathSeg::Key(k) => k.clone(),
                        PathSeg::Index(i) => i.to_string(),
                    })
                    .collect::<Vec<_>>()
                    .join(".");
                let (line, col) = locator.locate(&path);
                out.diagnostics.push(
                    Diagnostic::new("nvidia-config-duplicate-key", Severity::Warning)
                        .arg("key", key)
                        .at(Span::new(file, line, col)),
                );
            }
            json
        }
        Err(e) => {
            let err = ConfigError {
                inner: format!("unmarshal error: error converting YAML to JSON: {}", e.go_text),
                span: Span::new(file, e.line, e.column),
            };
            out.diagnostics.push(error_diagnostic("nvidia-config-yaml", &err));
            out.error = Some(err);
            return out;
        }
    };
    let mut decoder = Decoder { version, saved: None, unknown: Vec::new() };
    let decoded = decoder.config(&json).and_then(|c| match decoder.saved.take() {
        Some(saved) => Err(saved),
        None => Ok(c),
    });
    for (path, key) in &decoder.unknown {
        let (line, col) = locator.locate(path);
        out.diagnostics.push(
            Diagnostic::new("nvidia-config-unknown-key", Severity::Info).arg("key", key).at(Span::new(file, line, col)),
        );
    }
    let mut config = match decoded {
        Ok(c) => c,
        Err(e) => {
            let (line, col) = locator.locate(&e.path);
            let err = ConfigError {
                inner: format!("unmarshal error: error unmarshaling JSON: while decoding JSON: {}", e.message),
                span: Span::new(file, line, col),
            };
            out.diagnostics.push(error_diagnostic("nvidia-config-invalid", &err));
            out.error = Some(err);
            return out;
        }
    };
    if config.version.is_empty() {
        config.version = "v1".into();
    }
    if config.version != "v1" {
        let (line, col) = locator.locate(&[PathSeg::key("version")]);
        let err =
            ConfigError { inner: format!("unknown version: {}", config.version), span: Span::new(file, line, col) };
        out.diagnostics.push(error_diagnostic("nvidia-config-invalid", &err));
        out.error = Some(err);
        return out;
    }
    finalize(&mut config, version, file, &locator, &mut out);
    out.config = Some(config);
    out
}

fn error_diagnostic(code: &str, err: &ConfigError) -> Diagnostic {
    Diagnostic::new(code, Severity::Fatal)
        .arg("message", &err.inner)
        .arg("log", err.startup_error())
        .at(err.span.clone())
}

/// `NewConfig` + `DisableResourceNamingInConfig`: MPS defaults and the ignored fields.
fn finalize(
    config: &mut DevicePluginConfig,
    version: PluginVersion,
    file: &str,
    locator: &Locator,
    out: &mut LoadedConfig,
) {
    if let Some(mps) = config.sharing.mps.as_mut() {
        if version < PluginVersion::MPS_HONOURS_FAIL_REQUESTS {
            // v0.15.0 … v0.19.x: "Explicitly set sharing.mps.failRequestsGreaterThanOne = true".
            mps.fail_requests_greater_than_one = Some(true);
        } else if mps.fail_requests_greater_than_one.is_none() {
            mps.fail_requests_greater_than_one = Some(true);
        }
    }
    if config.resources_customised {
        let text = "Customizing the 'resources' field is not yet supported in the config. Ignoring...";
        let (line, col) = locator.locate(&[PathSeg::key("resources")]);
        out.warnings.push(text.into());
        out.diagnostics.push(ignored("resources", text, Span::new(file, line, col)));
    }
    let sections = [("timeSlicing", config.sharing.time_slicing.as_mut()), ("mps", config.sharing.mps.as_mut())];
    for (id, section) in sections {
        let Some(rrs) = section else { continue };
        let mut renamed_at = None;
        let mut devices_at = None;
        for (i, r) in rrs.resources.iter_mut().enumerate() {
            let default_rename = format!("{}{SHARED_SUFFIX}", r.name);
            if !rrs.rename_by_default && r.rename.is_some() {
                renamed_at.get_or_insert(i);
                r.rename = None;
            }
            if rrs.rename_by_default && r.rename.as_deref() != Some(default_rename.as_str()) {
                renamed_at.get_or_insert(i);
                r.rename = Some(default_rename);
            }
            if r.devices != ReplicatedDevices::All {
                devices_at.get_or_insert(i);
                r.devices = ReplicatedDevices::All;
            }
        }
        let at = |i: usize, key: &str| {
            let path = [
                PathSeg::key("sharing"),
                PathSeg::key(id),
                PathSeg::key("resources"),
                PathSeg::Index(i),
                PathSeg::key(key),
            ];
            let (line, col) = locator.locate(&path);
            Span::new(file, line, col)
        };
        if let Some(i) = renamed_at {
            let text = format!(
                "Setting the 'rename' field in sharing.{id}.resources is not yet supported in the config. Ignoring..."
            );
            out.diagnostics.push(ignored("rename", &text, at(i, "rename")));
            out.warnings.push(text);
        }
        if let Some(i) = devices_at {
            let text = format!("Customizing the 'devices' field in sharing.{id}.resources is not yet supported in the config. Ignoring...");
            out.diagnostics.push(ignored("devices", &text, at(i, "devices")));
            out.warnings.push(text);
        }
    }
}

fn ignored(field: &str, text: &str, span: Span) -> Diagnostic {
    Diagnostic::new("nvidia-config-ignored", Severity::Warning).arg("field", field).arg("message", text).at(span)
}

/// The flags after the deployment's env has overridden the file, with defaults filled in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EffectiveFlags {
    pub mig_strategy: String,
    pub mps_root: Option<String>,
    pub device_list_strategy: Vec<String>,
    pub device_id_strategy: String,
    pub shared_devices_allocation_policy: String,
}

/// Env over file, then the plugin's defaults (`none`, `envvar`, `uuid`, `distributed`).
pub fn effective_flags(config: &DevicePluginConfig, deployment: &Deployment) -> EffectiveFlags {
    let f = &config.flags;
    EffectiveFlags {
        mig_strategy: deployment
            .mig_strategy
            .clone()
            .or_else(|| f.mig_strategy.clone())
            .unwrap_or_else(|| "none".into()),
        mps_root: deployment.mps_root.clone().filter(|r| !r.is_empty()).or_else(|| f.mps_root.clone()),
        device_list_strategy: f.device_list_strategy.clone().unwrap_or_else(|| vec!["envvar".into()]),
        device_id_strategy: f.device_id_strategy.clone().unwrap_or_else(|| "uuid".into()),
        shared_devices_allocation_policy: f
            .shared_devices_allocation_policy
            .clone()
            .unwrap_or_else(|| "distributed".into()),
    }
}

/// `validateFlags` in `cmd/nvidia-device-plugin/main.go`: the inner message, if any.
pub fn validate_flags(config: &DevicePluginConfig, flags: &EffectiveFlags, version: PluginVersion) -> Option<String> {
    for s in &flags.device_list_strategy {
        if !matches!(s.as_str(), "envvar" | "volume-mounts" | "cdi-annotations" | "cdi-cri") {
            // The model's wording: the plugin's text for this case was not captured.
            return Some(format!("invalid --device-list-strategy option: invalid strategy: {s}"));
        }
    }
    if flags.device_id_strategy != "uuid" && flags.device_id_strategy != "index" {
        return Some(format!("invalid --device-id-strategy option: {}", flags.device_id_strategy));
    }
    if config.sharing.strategy() == SharingStrategy::Mps {
        if flags.mig_strategy == "mixed" {
            return Some("using --mig-strategy=mixed is not supported with MPS".into());
        }
        if flags.mps_root.as_deref().is_none_or(str::is_empty) {
            return Some("using MPS requires --mps-root to be specified".into());
        }
    }
    if MigStrategy::parse(&flags.mig_strategy).is_none() {
        return Some(format!("unknown MIG strategy: {}", flags.mig_strategy));
    }
    if version >= PluginVersion::REFERENCE
        && !matches!(flags.shared_devices_allocation_policy.as_str(), "distributed" | "packed")
    {
        return Some(format!(
            "invalid --shared-devices-allocation-policy option: {}",
            flags.shared_devices_allocation_policy
        ));
    }
    None
}

/// `NewResourceName`: prefix, length, DNS-subdomain check, with the plugin's texts.
pub fn new_resource_name(n: &str) -> Result<String, String> {
    let full =
        if n.starts_with(&format!("{RESOURCE_PREFIX}/")) { n.to_string() } else { format!("{RESOURCE_PREFIX}/{n}") };
    if full.len() > MAX_RESOURCE_NAME_LENGTH {
        return Err(format!(
            "fully-qualified resource name must be {MAX_RESOURCE_NAME_LENGTH} characters or less: {full}"
        ));
    }
    let name = full.split_once('/').map(|(_, n)| n).unwrap_or(&full);
    if !is_dns1123_subdomain(name) {
        return Err(format!(
            "incorrect format for resource name '{full}': [a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')]"
        ));
    }
    Ok(full)
}

/// apimachinery's `IsDNS1123Subdomain` (length ≤ 253, dot-separated RFC 1123 labels).
pub fn is_dns1123_subdomain(s: &str) -> bool {
    if s.is_empty() || s.len() > 253 {
        return false;
    }
    s.split('.').all(|label| {
        let b = label.as_bytes();
        let alnum = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
        !b.is_empty()
            && b.first().is_some_and(alnum)
            && b.last().is_some_and(alnum)
            && b.iter().all(|c| alnum(c) || *c == b'-')
    })
}

/// An error on the way through the decoder, with the path it points at.
#[derive(Debug, Clone)]
struct DecodeError {
    message: String,
    path: Vec<PathSeg>,
}

/// Go's `encoding/json` over the plugin's types, reduced to what the calculator needs.
struct Decoder {
    version: PluginVersion,
    /// The first type mismatch in a plain struct field (Go keeps decoding, reports it at the end).
    saved: Option<DecodeError>,
    /// Keys the plugin ignores, with their paths.
    unknown: Vec<(Vec<PathSeg>, String)>,
}

fn push(path: &[PathSeg], seg: PathSeg) -> Vec<PathSeg> {
    let mut p = path.to_vec();
    p.push(seg);
    p
}

fn abort<T>(message: impl Into<String>, path: Vec<PathSeg>) -> Result<T, DecodeError> {
    Err(DecodeError { message: message.into(), path })
}

/// Go's field matching: exact first, then case-insensitive.
fn field<'a>(key: &str, fields: &[&'a str]) -> Option<&'a str> {
    fields.iter().find(|f| **f == key).or_else(|| fields.iter().find(|f| f.eq_ignore_ascii_case(key))).copied()
}

impl Decoder {
    fn save(&mut self, message: String, path: Vec<PathSeg>) {
        if self.saved.is_none() {
            self.saved = Some(DecodeError { message, path });
        }
    }

    fn type_error(&mut self, v: &Json, strukt: &str, field_path: &str, go_type: &str, path: Vec<PathSeg>) {
        let value = match v {
            Json::Number(n) => format!("number {}", n.text),
            other => other.kind().to_string(),
        };
        self.save(
            format!("json: cannot unmarshal {value} into Go struct field {strukt}.{field_path} of type {go_type}"),
            path,
        );
    }

    /// A string-typed struct field: sigs.k8s.io/yaml turns YAML scalars into strings first.
    fn string_field(&mut self, v: &Json, strukt: &str, field_path: &str, path: Vec<PathSeg>) -> Option<String> {
        match v {
            Json::Null => None,
            Json::String(s) => Some(s.clone()),
            Json::Number(n) => Some(n.text.clone()),
            Json::Bool(b) => Some(b.to_string()),
            other => {
                self.type_error(other, strukt, field_path, "string", path);
                None
            }
        }
    }

    fn bool_field(&mut self, v: &Json, strukt: &str, field_path: &str, path: Vec<PathSeg>) -> Option<bool> {
        match v {
            Json::Null => None,
            Json::Bool(b) => Some(*b),
            Json::String(s) if yaml11_bool(s).is_some() => yaml11_bool(s),
            other => {
                self.type_error(other, strukt, field_path, "bool", path);
                None
            }
        }
    }

    fn config(&mut self, json: &Json) -> Result<DevicePluginConfig, DecodeError> {
        let mut config = DevicePluginConfig { version: String::new(), ..DevicePluginConfig::default() };
        let entries = match json {
            Json::Null => return Ok(config),
            Json::Object(entries) => entries,
            other => {
                self.save(
                    format!("json: cannot unmarshal {} into Go value of type v1.Config", other.kind()),
                    Vec::new(),
                );
                return Ok(config);
            }
        };
        for (key, value) in entries {
            let path = vec![PathSeg::key(key)];
            match field(key, &["version", "flags", "resources", "sharing", "imex"]) {
                Some("version") => {
                    if let Some(v) = self.string_field(value, "Config", "version", path) {
                        config.version = v;
                    }
                }
                Some("flags") => self.flags(value, &mut config.flags, &path),
                Some("resources") => config.resources_customised |= self.resources(value, &path)?,
                Some("sharing") => self.sharing(value, &mut config.sharing, &path)?,
                Some(_) => {}
                None => self.unknown.push((path, key.clone())),
            }
        }
        Ok(config)
    }

    fn flags(&mut self, json: &Json, flags: &mut Flags, path: &[PathSeg]) {
        let entries = match json {
            Json::Null => return,
            Json::Object(entries) => entries,
            other => {
                self.type_error(other, "Config", "flags", "v1.Flags", path.to_vec());
                return;
            }
        };
        const KNOWN: &[&str] = &[
            "migStrategy",
            "failOnInitError",
            "mpsRoot",
            "plugin",
            "nvidiaDriverRoot",
            "nvidiaDevRoot",
            "gdsEnabled",
            "mofedEnabled",
            "useNodeFeatureAPI",
            "deviceDiscoveryStrategy",
            "gfd",
            "kubeletSocket",
        ];
        for (key, value) in entries {
            let p = push(path, PathSeg::key(key));
            match field(key, KNOWN) {
                Some("migStrategy") => flags.mig_strategy = self.string_field(value, "Flags", "flags.migStrategy", p),
                Some("mpsRoot") => flags.mps_root = self.string_field(value, "Flags", "flags.mpsRoot", p),
                Some("failOnInitError") => {
                    flags.fail_on_init_error = self.bool_field(value, "Flags", "flags.failOnInitError", p)
                }
                Some("plugin") => self.plugin_flags(value, flags, &p),
                Some(_) => {}
                None => self.unknown.push((p, key.clone())),
            }
        }
    }

    fn plugin_flags(&mut self, json: &Json, flags: &mut Flags, path: &[PathSeg]) {
        let entries = match json {
            Json::Null => return,
            Json::Object(entries) => entries,
            other => {
                self.type_error(other, "Flags", "flags.plugin", "v1.PluginCommandLineFlags", path.to_vec());
                return;
            }
        };
        const KNOWN: &[&str] = &[
            "deviceListStrategy",
            "deviceIDStrategy",
            "sharedDevicesAllocationPolicy",
            "passDeviceSpecs",
            "cdiAnnotationPrefix",
            "nvidiaCTKPath",
            "containerDriverRoot",
        ];
        for (key, value) in entries {
            let p = push(path, PathSeg::key(key));
            let strukt = "PluginCommandLineFlags";
            match field(key, KNOWN) {
                Some("deviceIDStrategy") => {
                    flags.device_id_strategy = self.string_field(value, strukt, "flags.plugin.deviceIDStrategy", p)
                }
                Some("sharedDevicesAllocationPolicy") if self.version >= PluginVersion::REFERENCE => {
                    flags.shared_devices_allocation_policy =
                        self.string_field(value, strukt, "flags.plugin.sharedDevicesAllocationPolicy", p)
                }
                Some("deviceListStrategy") => match value {
                    Json::Null => {}
                    Json::String(s) => flags.device_list_strategy = Some(vec![s.clone()]),
                    Json::Array(items) if items.iter().all(|i| matches!(i, Json::String(_))) => {
                        flags.device_list_strategy = Some(
                            items
                                .iter()
                                .filter_map(|i| if let Json::String(s) = i { Some(s.clone()) } else { None })
                                .collect(),
                        )
                    }
                    other => self.type_error(other, strukt, "flags.plugin.deviceListStrategy", "[]string", p),
                },
                Some(_) => {}
                None => self.unknown.push((p, key.clone())),
            }
        }
    }

    /// `resources.gpus` / `resources.mig`; returns whether any entry was given.
    fn resources(&mut self, json: &Json, path: &[PathSeg]) -> Result<bool, DecodeError> {
        let entries = match json {
            Json::Null => return Ok(false),
            Json::Object(entries) => entries,
            other => {
                self.type_error(other, "Config", "resources", "v1.Resources", path.to_vec());
                return Ok(false);
            }
        };
        let mut any = false;
        for (key, value) in entries {
            let p = push(path, PathSeg::key(key));
            let Some(which) = field(key, &["gpus", "mig"]) else {
                self.unknown.push((p, key.clone()));
                continue;
            };
            let items = match value {
                Json::Null => continue,
                Json::Array(items) => items,
                other => {
                    self.type_error(other, "Resources", &format!("resources.{which}"), "[]v1.Resource", p);
                    continue;
                }
            };
            for (i, item) in items.iter().enumerate() {
                let ip = push(&p, PathSeg::Index(i));
                let map = raw_map(item, &ip)?;
                let Some(pattern) = map.and_then(|m| m.get("pattern")) else {
                    return abort("resources must have a 'pattern' field set", ip);
                };
                let Some(name) = map.and_then(|m| m.get("name")) else {
                    return abort("resources must have a 'name' field set", ip);
                };
                if !matches!(pattern, Json::String(_) | Json::Null) {
                    return abort(
                        format!("json: cannot unmarshal {} into Go value of type v1.ResourcePattern", pattern.kind()),
                        push(&ip, PathSeg::key("pattern")),
                    );
                }
                resource_name(name, push(&ip, PathSeg::key("name")))?;
                any = true;
            }
        }
        Ok(any)
    }

    fn sharing(&mut self, json: &Json, sharing: &mut Sharing, path: &[PathSeg]) -> Result<(), DecodeError> {
        let entries = match json {
            Json::Null => return Ok(()),
            Json::Object(entries) => entries,
            other => {
                self.type_error(other, "Config", "sharing", "v1.Sharing", path.to_vec());
                return Ok(());
            }
        };
        let known: &[&str] = if self.version.has_mps() { &["timeSlicing", "mps"] } else { &["timeSlicing"] };
        for (key, value) in entries {
            let p = push(path, PathSeg::key(key));
            if field(key, known).is_some() {
                self.unknown_in_replicated(value, &p);
            }
            match field(key, known) {
                Some("timeSlicing") => sharing.time_slicing = Some(replicated_resources(value, &p)?),
                Some("mps") => {
                    sharing.mps = match value {
                        Json::Null => None,
                        other => Some(replicated_resources(other, &p)?),
                    }
                }
                _ => self.unknown.push((p, key.clone())),
            }
        }
        Ok(())
    }
}

impl Decoder {
    /// Keys the hand-written decoders never look at (`renameBydefault`, `replica`): the plugin
    /// ignores them silently, which usually means a typo.
    fn unknown_in_replicated(&mut self, json: &Json, path: &[PathSeg]) {
        const SECTION: &[&str] = &["renameByDefault", "failRequestsGreaterThanOne", "resources", "strategy"];
        const RESOURCE: &[&str] = &["name", "rename", "devices", "replicas"];
        let Json::Object(entries) = json else { return };
        for (key, value) in entries {
            let p = push(path, PathSeg::key(key));
            if !SECTION.contains(&key.as_str()) {
                self.unknown.push((p, key.clone()));
            } else if key == "resources" {
                if let Json::Array(items) = value {
                    for (i, item) in items.iter().enumerate() {
                        let Json::Object(fields) = item else { continue };
                        for (k, _) in fields.iter().filter(|(k, _)| !RESOURCE.contains(&k.as_str())) {
                            self.unknown.push((push(&push(&p, PathSeg::Index(i)), PathSeg::key(k)), k.clone()));
                        }
                    }
                }
            }
        }
    }
}

/// `json.Unmarshal(b, &map[string]json.RawMessage{})`: `null` is an empty map.
fn raw_map<'a>(json: &'a Json, path: &[PathSeg]) -> Result<Option<&'a Json>, DecodeError> {
    match json {
        Json::Null => Ok(None),
        Json::Object(_) => Ok(Some(json)),
        other => abort(
            format!("json: cannot unmarshal {} into Go value of type map[string]json.RawMessage", other.kind()),
            path.to_vec(),
        ),
    }
}

/// `ReplicatedResources.UnmarshalJSON`.
fn replicated_resources(json: &Json, path: &[PathSeg]) -> Result<ReplicatedResources, DecodeError> {
    let map = raw_map(json, path)?;
    let get = |k: &str| map.and_then(|m| m.get(k));
    let mut out = ReplicatedResources::default();
    if let Some(v) = get("renameByDefault") {
        out.rename_by_default = go_bool(v, push(path, PathSeg::key("renameByDefault")))?.unwrap_or(false);
    }
    if let Some(v) = get("failRequestsGreaterThanOne") {
        out.fail_requests_greater_than_one = go_bool(v, push(path, PathSeg::key("failRequestsGreaterThanOne")))?;
    }
    let Some(resources) = get("resources") else {
        return abort("no resources specified", path.to_vec());
    };
    let rp = push(path, PathSeg::key("resources"));
    match resources {
        Json::Null => {}
        Json::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                out.resources.push(replicated_resource(item, &push(&rp, PathSeg::Index(i)))?);
            }
        }
        other => {
            return abort(
                format!("json: cannot unmarshal {} into Go value of type []v1.ReplicatedResource", other.kind()),
                rp,
            )
        }
    }
    if out.resources.is_empty() {
        return abort("no resources specified", rp);
    }
    if out.rename_by_default {
        for r in &mut out.resources {
            if r.rename.is_none() {
                r.rename = Some(format!("{}{SHARED_SUFFIX}", r.name));
            }
        }
    }
    Ok(out)
}

/// go-yaml v2 reads YAML 1.1 booleans (`yes`, `on`, `off` …) where serde_norway (YAML 1.2)
/// sees strings; for bool fields the model reads them as the plugin does. (A quoted `"yes"`
/// would stay a string for the plugin; the loaded tree cannot tell the two apart.)
fn yaml11_bool(s: &str) -> Option<bool> {
    match s {
        "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" | "True" | "TRUE" => Some(true),
        "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" | "False" | "FALSE" => Some(false),
        _ => None,
    }
}

fn go_bool(v: &Json, path: Vec<PathSeg>) -> Result<Option<bool>, DecodeError> {
    match v {
        Json::Null => Ok(None),
        Json::Bool(b) => Ok(Some(*b)),
        Json::String(s) if yaml11_bool(s).is_some() => Ok(yaml11_bool(s)),
        other => abort(format!("json: cannot unmarshal {} into Go value of type bool", other.kind()), path),
    }
}

/// `ReplicatedResource.UnmarshalJSON`: name, devices, replicas, rename, in that order.
fn replicated_resource(json: &Json, path: &[PathSeg]) -> Result<ReplicatedResource, DecodeError> {
    let map = raw_map(json, path)?;
    let get = |k: &str| map.and_then(|m| m.get(k));
    let Some(name) = get("name") else {
        return abort("no resource name specified", path.to_vec());
    };
    let name = resource_name(name, push(path, PathSeg::key("name")))?;
    let devices = match get("devices") {
        None => ReplicatedDevices::All,
        Some(d) => replicated_devices(d, push(path, PathSeg::key("devices")))?,
    };
    let Some(replicas) = get("replicas") else {
        return abort("no replicas specified", path.to_vec());
    };
    let rpath = push(path, PathSeg::key("replicas"));
    let replicas = match replicas {
        Json::Null => 0,
        Json::Number(n) => match n.int {
            Some(i) => i,
            None => return abort(format!("json: cannot unmarshal number {} into Go value of type int", n.text), rpath),
        },
        other => return abort(format!("json: cannot unmarshal {} into Go value of type int", other.kind()), rpath),
    };
    if replicas < 2 {
        return abort("number of replicas must be >= 2", rpath);
    }
    let rename = match get("rename") {
        None => None,
        Some(r) => Some(resource_name(r, push(path, PathSeg::key("rename")))?),
    };
    Ok(ReplicatedResource { name, rename, devices, replicas })
}

/// `ResourceName.UnmarshalJSON`.
fn resource_name(json: &Json, path: Vec<PathSeg>) -> Result<String, DecodeError> {
    let raw = match json {
        Json::Null => String::new(),
        Json::String(s) => s.clone(),
        other => return abort(format!("json: cannot unmarshal {} into Go value of type string", other.kind()), path),
    };
    new_resource_name(&raw).or_else(|e| abort(e, path))
}

/// `ReplicatedDevices.UnmarshalJSON`: `all`, a count, or a list of indices / UUIDs.
fn replicated_devices(json: &Json, path: Vec<PathSeg>) -> Result<ReplicatedDevices, DecodeError> {
    match json {
        // `json.Unmarshal("null", &str)` succeeds and leaves "".
        Json::Null => abort("devices set as '' but the only valid string input is 'all'", path),
        Json::String(s) if s == "all" => Ok(ReplicatedDevices::All),
        Json::String(s) => abort(format!("devices set as '{s}' but the only valid string input is 'all'"), path),
        Json::Number(n) => match n.int {
            Some(c) if c > 0 => Ok(ReplicatedDevices::Count(c)),
            Some(c) => abort(format!("devices set as '{c}' but a count of devices must be > 0"), path),
            None => abort(format!("unrecognized type for devices spec: {}", n.text), path),
        },
        Json::Array(items) => {
            let mut list = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                match item {
                    Json::Null => list.push("0".to_string()),
                    Json::Number(n) if n.int.is_some_and(|v| v >= 0) => list.push(n.text.clone()),
                    Json::String(s) if is_device_ref(s) => list.push(s.clone()),
                    Json::String(s) => {
                        return abort(
                            format!("unsupported type for device in devices list: {s}, string"),
                            push(&path, PathSeg::Index(i)),
                        )
                    }
                    _ => {
                        return abort(
                            "unsupported type for device in devices list: , string",
                            push(&path, PathSeg::Index(i)),
                        )
                    }
                }
            }
            Ok(ReplicatedDevices::List(list))
        }
        other => abort(format!("unrecognized type for devices spec: {}", other.to_json_text()), path),
    }
}

/// A GPU index, a `gpu:mig` index, or a GPU / MIG UUID.
fn is_device_ref(s: &str) -> bool {
    let is_uint = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    if is_uint(s) {
        return true;
    }
    if let Some((a, b)) = s.split_once(':') {
        if is_uint(a) && is_uint(b) {
            return true;
        }
    }
    if let Some(u) = s.strip_prefix("GPU-") {
        return is_uuid(u);
    }
    if let Some(rest) = s.strip_prefix("MIG-") {
        if is_uuid(rest) {
            return true;
        }
        let parts: Vec<&str> = rest.splitn(3, '/').collect();
        if let [gpu, gi, ci] = parts.as_slice() {
            return gpu.strip_prefix("GPU-").is_some_and(is_uuid) && is_uint(gi) && is_uint(ci);
        }
    }
    false
}

/// `uuid.Parse` for the two spellings seen in practice (36 chars with dashes, 32 hex).
fn is_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    match b.len() {
        32 => b.iter().all(u8::is_ascii_hexdigit),
        36 => b
            .iter()
            .enumerate()
            .all(|(i, c)| if matches!(i, 8 | 13 | 18 | 23) { *c == b'-' } else { c.is_ascii_hexdigit() }),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const V: PluginVersion = PluginVersion::REFERENCE;

    fn inner(text: &str) -> String {
        let loaded = load("config.yaml", text, V);
        loaded.error.map(|e| e.inner).unwrap_or_else(|| "<no error>".into())
    }

    fn ts(resource: &str) -> String {
        format!("version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - {resource}\n")
    }

    /// Each parse error of the spec's table (§1.3), with the plugin's exact text.
    #[test]
    fn parse_errors_use_the_plugins_texts() {
        let p = "unmarshal error: error unmarshaling JSON: while decoding JSON: ";
        let cases = [
            (ts("name: nvidia.com/gpu\n      replicas: 1"), format!("{p}number of replicas must be >= 2")),
            (ts("name: nvidia.com/gpu\n      replicas: 0"), format!("{p}number of replicas must be >= 2")),
            (ts("name: nvidia.com/gpu\n      replicas: -4"), format!("{p}number of replicas must be >= 2")),
            (ts("name: nvidia.com/gpu"), format!("{p}no replicas specified")),
            (ts("replicas: 4"), format!("{p}no resource name specified")),
            (
                ts("name: gpu\n      devices: some\n      replicas: 2"),
                format!("{p}devices set as 'some' but the only valid string input is 'all'"),
            ),
            (
                ts("name: gpu\n      devices: 0\n      replicas: 2"),
                format!("{p}devices set as '0' but a count of devices must be > 0"),
            ),
            ("version: v1\nsharing:\n  timeSlicing:\n".into(), format!("{p}no resources specified")),
            ("version: v1\nsharing:\n  timeSlicing:\n    resources: []\n".into(), format!("{p}no resources specified")),
            (
                ts(&format!("name: {}\n      replicas: 2", "a".repeat(60))),
                format!(
                    "{p}fully-qualified resource name must be 63 characters or less: nvidia.com/{}",
                    "a".repeat(60)
                ),
            ),
            ("version: v2\n".into(), "unknown version: v2".into()),
            (
                ts("name: gpu\n      replicas: four"),
                format!("{p}json: cannot unmarshal string into Go value of type int"),
            ),
            (
                ts("name: gpu\n      replicas: 2.5"),
                format!("{p}json: cannot unmarshal number 2.5 into Go value of type int"),
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(inner(&text), expected, "config:\n{text}");
        }
    }

    /// An error points at the offending key: `replicas: 1` on line 6, column 7.
    #[test]
    fn errors_carry_file_line_column() {
        let loaded = load("cm/any.yaml", &ts("name: nvidia.com/gpu\n      replicas: 1"), V);
        let err = loaded.error.unwrap();
        assert_eq!(err.span.to_string(), "cm/any.yaml:6:7");
        assert!(err.startup_error().starts_with("error starting plugins: unable to load config:"));
        let d = loaded.diagnostics.iter().find(|d| d.severity == Severity::Fatal).unwrap();
        assert_eq!(d.primary.as_ref().unwrap().line, 6);
    }

    /// The decoder stops at the first hand-written decoder error in Go's key order:
    /// `sharing` sorts before `version`, so a bad resource beats a bad version.
    #[test]
    fn first_error_follows_go_order() {
        let text = "version: v9\nsharing:\n  timeSlicing:\n    resources:\n    - name: gpu\n      replicas: 1\n";
        assert!(inner(text).ends_with("number of replicas must be >= 2"));
    }

    /// `rename` is parsed (and prefixed) but ignored with the plugin's warning; renameByDefault is kept.
    #[test]
    fn rename_and_devices_are_ignored_with_warnings() {
        let loaded = load(
            "c.yaml",
            &ts("name: nvidia.com/gpu\n      replicas: 4\n      rename: gpu-shared\n      devices: [0, 1]"),
            V,
        );
        assert_eq!(
            loaded.warnings,
            vec![
                "Setting the 'rename' field in sharing.timeSlicing.resources is not yet supported in the config. Ignoring...",
                "Customizing the 'devices' field in sharing.timeSlicing.resources is not yet supported in the config. Ignoring...",
            ]
        );
        let r = &loaded.config.unwrap().sharing.time_slicing.unwrap().resources[0];
        assert_eq!((r.rename.as_deref(), &r.devices), (None, &ReplicatedDevices::All));

        let loaded = load(
            "c.yaml",
            "sharing:\n  timeSlicing:\n    renameByDefault: true\n    resources:\n    - name: gpu\n      replicas: 2\n",
            V,
        );
        assert!(loaded.warnings.is_empty());
        let r = &loaded.config.unwrap().sharing.time_slicing.unwrap().resources[0];
        assert_eq!(r.advertised_name(), "nvidia.com/gpu.shared");
    }

    /// MPS wins when both are set; MPS's failRequestsGreaterThanOne defaults to true
    /// (v0.20.0) and is forced true before v0.20.0.
    #[test]
    fn mps_precedence_and_defaults() {
        let text = "sharing:\n  timeSlicing:\n    resources:\n    - name: gpu\n      replicas: 2\n  mps:\n    failRequestsGreaterThanOne: false\n    resources:\n    - name: gpu\n      replicas: 3\n";
        let c = load("c.yaml", text, V).config.unwrap();
        assert_eq!(c.sharing.strategy(), SharingStrategy::Mps);
        assert_eq!(c.sharing.replication_for("nvidia.com/gpu").unwrap().replicas, 3);
        assert_eq!(c.sharing.mps.as_ref().unwrap().fail_requests_greater_than_one, Some(false));
        let old = load("c.yaml", text, PluginVersion::new(0, 19, 3)).config.unwrap();
        assert_eq!(old.sharing.mps.unwrap().fail_requests_greater_than_one, Some(true));
        let ancient = load("c.yaml", text, PluginVersion::new(0, 14, 0)).config.unwrap();
        assert_eq!(ancient.sharing.strategy(), SharingStrategy::TimeSlicing);
    }

    /// The operator's MIG_STRATEGY beats the file; MPS refuses `mixed` and needs an MPS root.
    #[test]
    fn flags_precedence_and_validation() {
        let text =
            "flags:\n  migStrategy: single\nsharing:\n  mps:\n    resources:\n    - name: gpu\n      replicas: 2\n";
        let c = load("c.yaml", text, V).config.unwrap();
        let env = Deployment { mig_strategy: Some("mixed".into()), ..Deployment::default() };
        let flags = effective_flags(&c, &env);
        assert_eq!(flags.mig_strategy, "mixed");
        assert_eq!(
            validate_flags(&c, &flags, V).as_deref(),
            Some("using --mig-strategy=mixed is not supported with MPS")
        );
        let no_root = Deployment { mig_strategy: None, mps_root: None };
        assert_eq!(
            validate_flags(&c, &effective_flags(&c, &no_root), V).as_deref(),
            Some("using MPS requires --mps-root to be specified")
        );
        let bad = load("c.yaml", "flags:\n  migStrategy: mixd\n", V).config.unwrap();
        assert_eq!(
            validate_flags(&bad, &effective_flags(&bad, &Deployment::default()), V).as_deref(),
            Some("unknown MIG strategy: mixd")
        );
    }

    /// YAML syntax errors come back as the plugin's `error converting YAML to JSON` text.
    #[test]
    fn yaml_errors_are_wrapped_like_the_plugin() {
        let loaded = load("c.yaml", "version: v1\nsharing: x: y\n", V);
        assert_eq!(
            loaded.error.unwrap().inner,
            "unmarshal error: error converting YAML to JSON: yaml: line 2: mapping values are not allowed in this context"
        );
    }

    /// A misspelt top-level key is silently ignored by the plugin; the model says so.
    #[test]
    fn unknown_keys_are_reported() {
        let loaded = load("c.yaml", "version: v1\nsharng:\n  timeSlicing: {}\n", V);
        assert!(loaded.error.is_none());
        let d = loaded.diagnostics.iter().find(|d| d.code == "nvidia-config-unknown-key").unwrap();
        assert_eq!(d.get("key"), Some("sharng"));
        assert_eq!(d.primary.as_ref().unwrap().line, 2);
        let loaded = load("c.yaml", &ts("name: gpu\n      replicas: 2\n      renam: x"), V);
        let d = loaded.diagnostics.iter().find(|d| d.code == "nvidia-config-unknown-key").unwrap();
        assert_eq!((d.get("key"), d.primary.as_ref().unwrap().line), (Some("renam"), 7));
    }

    /// YAML 1.1 booleans (`yes`, `on`) read as go-yaml reads them.
    #[test]
    fn yaml11_booleans() {
        let loaded = load("c.yaml", &ts("name: gpu\n      replicas: 2").replace("  timeSlicing:\n", "  timeSlicing:\n    renameByDefault: yes\n    failRequestsGreaterThanOne: on\n"), V);
        let rr = loaded.config.unwrap().sharing.time_slicing.unwrap();
        assert!(rr.rename_by_default);
        assert_eq!(rr.fail_requests_greater_than_one, Some(true));
    }

    /// Resource names get the prefix and the DNS-subdomain check.
    #[test]
    fn resource_names() {
        assert_eq!(new_resource_name("gpu").unwrap(), "nvidia.com/gpu");
        assert_eq!(new_resource_name("nvidia.com/mig-1g.5gb").unwrap(), "nvidia.com/mig-1g.5gb");
        assert!(new_resource_name("GPU")
            .unwrap_err()
            .starts_with("incorrect format for resource name 'nvidia.com/GPU'"));
        assert!(is_device_ref("GPU-b1028956-cfa2-0990-bf4a-5da9abb51763"));
        assert!(is_device_ref("MIG-GPU-b1028956-cfa2-0990-bf4a-5da9abb51763/3/0"));
        assert!(is_device_ref("0:1"));
        assert!(!is_device_ref("first"));
    }
}

//! The third stage: each file merged into the config so far (`mergeConfig`): 1.x
//! replaces a plugin table whole, 2.x merges tables key by key (`mergo`), and every
//! replacement and override is kept as a [`MergeEvent`] with the settings it lost —
//! what the explanation ([`super::explain`]) shows the learner.
//!
//! Next: the merged config is validated ([`super::load`]), decoded onto the
//! version's defaults ([`super::decode`]) and printed ([`super::dump`]).

use super::load::Loaded;
use super::value::{Node, Origin, Table, Value};
use super::version::Version;

/// Something the merge did that a learner should see.
#[derive(Debug, Clone, PartialEq)]
pub enum MergeEvent {
    /// A later file's table replaced an earlier one whole (1.x plugins; any version's
    /// proxy plugins and stream processors). `lost` are the earlier leaves it dropped.
    TableReplaced { table: Vec<String>, by: Option<Origin>, earlier: Option<Origin>, lost: Vec<Lost> },
    /// A later file changed a value an earlier file had set.
    ValueChanged { path: Vec<String>, old: Node, new: Node },
    /// A zero value (`0`, `""`, `false`) that does not override (server config fields).
    ZeroIgnored { path: Vec<String>, at: Option<Origin> },
    /// A key containerd does not know, dropped while reading a file.
    UnknownKey { path: Vec<String>, at: Option<Origin> },
}

/// An earlier setting a replacement dropped.
#[derive(Debug, Clone, PartialEq)]
pub struct Lost {
    pub path: Vec<String>,
    pub value: Node,
}

/// Visits the leaves of `n` (values other than non-empty tables) with their path.
fn for_each_leaf<'n>(prefix: &mut Vec<&'n str>, n: &'n Node, visit: &mut impl FnMut(&[&'n str], &'n Node)) {
    match &n.value {
        Value::Table(t) if !t.entries.is_empty() => {
            for (k, v) in &t.entries {
                prefix.push(k);
                for_each_leaf(prefix, v, visit);
                prefix.pop();
            }
        }
        _ => visit(prefix, n),
    }
}

/// Leaves of `old` that `new` drops: absent from it, or there only as an unwritten
/// zero value. Only the lost ones are copied (a replaced table can hold thousands).
pub fn lost_leaves(old: &Node, new: &Node) -> Vec<Lost> {
    let new_table = new.as_table();
    let mut lost = Vec::new();
    for_each_leaf(&mut Vec::new(), old, &mut |path, value| {
        if value.origin.is_none() && value.is_zero() {
            return;
        }
        let dropped = match new_table.and_then(|t| t.get_path(path)) {
            None => value.origin.is_some() || !value.is_zero(),
            Some(n) => n.origin.is_none() && n != value,
        };
        if dropped {
            lost.push(Lost { path: path.iter().map(|k| (*k).to_string()).collect(), value: value.clone() });
        }
    });
    lost
}

pub(super) fn merge(version: &Version, st: &mut Loaded, file: Table) {
    for (key, node) in file.entries {
        match key.as_str() {
            "plugins" => {
                let Value::Table(plugins) = node.value else { continue };
                for (id, table) in plugins.entries {
                    if version.is_1x() {
                        let by = table.origin.clone();
                        if let Some(old) = st.plugins.get(&id) {
                            let events = &mut st.events;
                            for_each_leaf(&mut Vec::new(), old, &mut |p, ov| {
                                if let Some(nv) = table.as_table().and_then(|t| t.get_path(p)) {
                                    if nv != ov && !nv.is_table() {
                                        let mut full = vec!["plugins".to_string(), id.clone()];
                                        full.extend(p.iter().map(|k| (*k).to_string()));
                                        events.push(MergeEvent::ValueChanged { path: full, old: ov.clone(), new: nv.clone() });
                                    }
                                }
                            });
                            st.events.push(MergeEvent::TableReplaced {
                                table: vec!["plugins".into(), id.clone()],
                                by,
                                earlier: old.origin.clone(),
                                lost: lost_leaves(old, &table),
                            });
                        }
                        st.plugins.insert(id, table);
                    } else {
                        let path = vec!["plugins".to_string(), id.clone()];
                        match st.plugins.get_mut(&id) {
                            Some(existing) => deep_merge(existing, table, &path, &mut st.events),
                            None => st.plugins.insert(id, table),
                        }
                    }
                }
            }
            "imports" | "disabled_plugins" | "required_plugins" => {
                let Value::Array(items) = node.value else { continue };
                if key == "imports" && st.imports_nil && !items.is_empty() {
                    st.imports_nil = false;
                    st.top.insert(key.clone(), Node::new(Value::Array(items), node.origin));
                    continue;
                }
                let target = match st.top.get_mut(&key) {
                    Some(Node { value: Value::Array(a), .. }) => a,
                    _ => {
                        st.top.insert(key.clone(), Node::builtin(Value::Array(Vec::new())));
                        match st.top.get_mut(&key) {
                            Some(Node { value: Value::Array(a), .. }) => a,
                            _ => continue,
                        }
                    }
                };
                for item in items {
                    if version.is_1x() || !target.iter().any(|t| t == &item) {
                        target.push(item);
                    }
                }
            }
            "proxy_plugins" | "stream_processors" | "timeouts" => {
                let Value::Table(map) = node.value else { continue };
                let origin = node.origin.clone();
                if !st.top.contains(&key) {
                    // go-toml v2 prints struct fields in order: proxy_plugins follows cgroup.
                    let at = st.top.entries.iter().position(|(k, _)| k == "cgroup").map_or(st.top.entries.len(), |i| i + 1);
                    st.top.entries.insert(at, (key.clone(), Node::new(Value::Table(Table::new()), origin.clone())));
                }
                let Some(target) = st.top.table_mut(&key, origin) else { continue };
                for (name, entry) in map.entries {
                    if let Some(old) = target.get(&name) {
                        if key == "timeouts" {
                            if old != &entry {
                                st.events.push(MergeEvent::ValueChanged { path: vec![key.clone(), name.clone()], old: old.clone(), new: entry.clone() });
                            }
                        } else {
                            st.events.push(MergeEvent::TableReplaced {
                                table: vec![key.clone(), name.clone()],
                                by: entry.origin.clone(),
                                earlier: old.origin.clone(),
                                lost: lost_leaves(old, &entry),
                            });
                        }
                    }
                    target.insert(name, entry);
                }
            }
            _ if node.is_table() => {
                // A server section: field by field, non-zero wins.
                let Value::Table(fields) = node.value else { continue };
                let origin = node.origin.clone();
                for (f, v) in fields.entries {
                    let path = vec![key.clone(), f.clone()];
                    let Some(target) = st.top.table_mut(&key, origin.clone()) else { continue };
                    override_scalar(target, &f, v, path, &mut st.events);
                }
            }
            _ => {
                let path = vec![key.clone()];
                override_scalar(&mut st.top, &key, node, path, &mut st.events);
            }
        }
    }
}

fn override_scalar(target: &mut Table, key: &str, v: Node, path: Vec<String>, events: &mut Vec<MergeEvent>) {
    if v.is_zero() {
        if target.get(key).is_some_and(|old| old != &v) {
            events.push(MergeEvent::ZeroIgnored { path, at: v.origin.clone() });
        }
        return;
    }
    if let Some(old) = target.get(key) {
        if old.origin.is_some() && old != &v && path != ["version"] {
            events.push(MergeEvent::ValueChanged { path, old: old.clone(), new: v.clone() });
        }
    }
    target.insert(key, v);
}

/// 2.x `mergo` deep merge of plugin tables: tables merge key by key, any other value
/// (zero or not, arrays included) replaces.
fn deep_merge(dst: &mut Node, src: Node, path: &[String], events: &mut Vec<MergeEvent>) {
    match (&mut dst.value, src.value) {
        (Value::Table(d), Value::Table(s)) => {
            for (k, v) in s.entries {
                let mut p = path.to_vec();
                p.push(k.clone());
                match d.get_mut(&k) {
                    Some(existing) => deep_merge(existing, v, &p, events),
                    None => d.insert(k, v),
                }
            }
        }
        (_, value) => {
            let new = Node::new(value, src.origin);
            if dst.origin.is_some() && *dst != new {
                events.push(MergeEvent::ValueChanged { path: path.to_vec(), old: dst.clone(), new: new.clone() });
            }
            *dst = new;
        }
    }
}

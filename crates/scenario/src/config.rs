//! The `config` directive: the part of the file it starts (`variant=`,
//! `protocols=`) and the group settings, each one some registered
//! protocol's (see [`Registry::check_setting`]).

use replication::{Registry, Settings};

/// What `config` asked for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Config {
    /// `variant=`: the matrix variant this part of the file is (not a group
    /// setting).
    pub variant: Option<String>,
    /// `protocols=`: the names of the protocols this part runs on; `None` =
    /// every registered protocol (not a group setting).
    pub protocols: Option<Vec<String>>,
    /// Every other `key=value`, in the order written: the group's settings.
    pub settings: Settings,
}

impl Config {
    /// Takes every `key=value` pair as a setting; an unknown key or a
    /// malformed value is an error.
    pub(crate) fn take(
        pairs: &mut Vec<(String, String)>,
        registry: &Registry,
    ) -> Result<Config, String> {
        let mut config = Config::default();
        for (key, value) in pairs.drain(..) {
            match key.as_str() {
                "variant" => {
                    if value.is_empty()
                        || value.contains(|c: char| !c.is_ascii_alphanumeric() && c != '_')
                    {
                        return Err(format!(
                            "`variant={value}`: a variant name is letters, digits and `_`"
                        ));
                    }
                    config.variant = Some(value);
                }
                "protocols" => {
                    let mut list = Vec::new();
                    for name in value.split(',') {
                        if registry.named(name).is_none() {
                            return Err(format!(
                                "`protocols={value}`: unknown protocol `{name}` (known: {})",
                                registry.names().join(", ")
                            ));
                        }
                        list.push(name.to_owned());
                    }
                    config.protocols = Some(list);
                }
                _ => {
                    registry.check_setting(&key, &value)?;
                    config.settings.set(key, value);
                }
            }
        }
        Ok(config)
    }

    /// True when the part runs on the protocol called `name`.
    pub fn runs_on(&self, name: &str) -> bool {
        self.protocols
            .as_ref()
            .is_none_or(|list| list.iter().any(|p| p == name))
    }
}

//! What a provider's model can do and where mewcode learnt it: the context window's source and
//! whether the model accepts images (`vision`), each shown beside its value so a wrong guess is
//! never silent.
//!
//! Invariant: a configured value always wins over a discovered one, and a discovered one over the
//! default; the default of vision is decided here once, from the protocol and the endpoint:
//! Anthropic's API and the public OpenAI endpoint take images, another OpenAI-compatible server
//! (Ollama, llama.cpp, vLLM) is assumed not to until it says so or the config does. No IO.

use super::{Protocol, ProviderConfig};

/// Where a provider's context window comes from, shown next to it (status line, `/model`,
/// doctor) so a wrong window is never silent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum WindowSource {
    /// `context_window: N` in a config file.
    Configured,
    /// The server said so at start-up: `endpoint` is what answered (`GET /props`), `note` any
    /// caveat about the figure (Ollama's default window is assumed, not reported).
    Discovered { endpoint: String, note: Option<String> },
    /// Nothing configured and nothing discovered: the protocol default.
    Default,
}

impl WindowSource {
    /// A few words for the user: `configured`, `from GET /props`, `protocol default`.
    pub(crate) fn describe(&self) -> String {
        match self {
            WindowSource::Configured => "configured".to_string(),
            WindowSource::Discovered { endpoint, note: None } => format!("from {endpoint}"),
            WindowSource::Discovered { endpoint, note: Some(note) } => format!("from {endpoint}; {note}"),
            WindowSource::Default => "protocol default".to_string(),
        }
    }
}

/// Whether the model accepts images, and who said so.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Vision {
    pub accepts: bool,
    pub source: VisionSource,
}

/// Where `Vision::accepts` comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum VisionSource {
    /// `vision: true|false` in the provider's entry.
    Configured,
    /// The server reported it (`endpoint`: `POST /api/show`, `GET /props`).
    Discovered { endpoint: String },
    /// Neither: the protocol's and endpoint's default.
    Default,
}

impl Vision {
    /// What the provider's entry says: `vision: true|false`, or nothing.
    pub(crate) fn configured(entry: Option<bool>) -> Option<Vision> {
        entry.map(|accepts| Vision { accepts, source: VisionSource::Configured })
    }

    /// `yes (configured)`, `no (default)`, `yes (discovered from POST /api/show)` for doctor.
    pub(crate) fn describe(&self) -> String {
        let answer = if self.accepts { "yes" } else { "no" };
        match &self.source {
            VisionSource::Configured => format!("{answer} (configured)"),
            VisionSource::Discovered { endpoint } => format!("{answer} (discovered from {endpoint})"),
            VisionSource::Default => format!("{answer} (default)"),
        }
    }

    /// Why a model takes no image, for the model's and the person's refusal text.
    pub(crate) fn refusal(&self, provider: &str) -> String {
        let why = match &self.source {
            VisionSource::Configured => format!("providers[{provider}].vision is off"),
            VisionSource::Discovered { endpoint } => format!("the server reports no vision ({endpoint})"),
            VisionSource::Default => "not reported by the server".to_string(),
        };
        format!("this model does not accept images ({why}): set `vision: true` for the provider {provider} if it does")
    }
}

/// Anthropic's API and the public OpenAI endpoint take images; another OpenAI-compatible server
/// may serve a text-only model, which would answer an image with an error.
fn default_vision(protocol: Protocol, base_url: &str) -> bool {
    match protocol {
        Protocol::Anthropic => true,
        Protocol::OpenAi => base_url == Protocol::OpenAi.default_base_url(),
    }
}

impl ProviderConfig {
    /// Whether the model accepts images: configured, else discovered, else the default of the
    /// protocol and the endpoint as they are now (a provider's base URL may be set after it
    /// was made, by a probe or the environment).
    pub(crate) fn vision(&self) -> Vision {
        self.vision.clone().unwrap_or_else(|| Vision {
            accepts: default_vision(self.protocol, &self.base_url),
            source: VisionSource::Default,
        })
    }

    /// Why images do not go to this provider's model, or None when they do.
    pub(crate) fn image_refusal(&self) -> Option<String> {
        let vision = self.vision();
        (!vision.accepts).then(|| vision.refusal(&self.name))
    }

    /// Records what the server reported about images, unless the config decided it.
    pub(crate) fn discovered_vision(&mut self, accepts: bool, endpoint: &str) {
        if self.vision.as_ref().is_none_or(|vision| vision.source != VisionSource::Configured) {
            let source = VisionSource::Discovered { endpoint: endpoint.to_string() };
            self.vision = Some(Vision { accepts, source });
        }
    }
}

#[cfg(test)]
#[path = "capability_tests.rs"]
mod tests;

//! A `session/prompt`'s content blocks as a rho prompt: text blocks joined, images attached,
//! a resource link named, an embedded text resource given whole in a `<resource>` element (as
//! Pi's `@file` gives a file), a binary one named. Audio is not offered (the capability says
//! so); a client that sends it anyway gets it named, not dropped silently.

use agent_client_protocol::v1::schema::{ContentBlock, EmbeddedResourceResource};
use rho_ai::ImageContent;

/// The prompt's text and images.
pub fn prompt_of(blocks: &[ContentBlock]) -> (String, Vec<ImageContent>) {
    let mut parts: Vec<String> = Vec::new();
    let mut images = Vec::new();
    for block in blocks {
        match block {
            ContentBlock::Text(text) => parts.push(text.text.clone()),
            ContentBlock::Image(image) => images.push(ImageContent {
                data: image.data.clone(),
                mime_type: image.mime_type.clone(),
            }),
            ContentBlock::ResourceLink(link) => {
                parts.push(format!("[{}]({})", link.name, link.uri));
            }
            ContentBlock::Resource(embedded) => match &embedded.resource {
                EmbeddedResourceResource::TextResourceContents(text) => parts.push(format!(
                    "<resource uri=\"{}\">\n{}\n</resource>",
                    text.uri, text.text
                )),
                EmbeddedResourceResource::BlobResourceContents(blob) => parts.push(format!(
                    "[binary resource {} ({}), not included]",
                    blob.uri,
                    blob.mime_type.as_deref().unwrap_or("unknown type")
                )),
                _ => parts.push("[a resource of a kind rho does not read]".to_owned()),
            },
            ContentBlock::Audio(_) => parts.push("[audio, which rho does not take]".to_owned()),
            _ => parts.push("[content of a kind rho does not read]".to_owned()),
        }
    }
    (parts.join("\n\n"), images)
}

//! The `/` commands a client may offer (`available_commands_update`): `/compact`, the prompt
//! templates and the skills. Templates and skills expand in the prompt as in every mode;
//! `/compact [instructions]` summarises the older part of the session instead of prompting.

use agent_client_protocol::v1::schema::{
    AvailableCommand, AvailableCommandInput, AvailableCommandsUpdate, UnstructuredCommandInput,
};
use rho_host::prompt::PromptResources;

/// The commands of a session with `resources`.
pub fn available(resources: &PromptResources) -> AvailableCommandsUpdate {
    let hint =
        |text: &str| AvailableCommandInput::Unstructured(UnstructuredCommandInput::new(text));
    let mut commands = vec![
        AvailableCommand::new(
            "compact",
            "Summarise the older part of the session to free the context",
        )
        .input(hint("what the summary should keep (optional)")),
    ];
    for template in &resources.templates {
        commands.push(
            AvailableCommand::new(template.name.clone(), template.description.clone())
                .input(hint("arguments")),
        );
    }
    for skill in &resources.skills {
        commands.push(AvailableCommand::new(
            format!("skill:{}", skill.name),
            skill.description.clone(),
        ));
    }
    AvailableCommandsUpdate::new(commands)
}

/// `/compact` and its instructions, when `text` is that command.
pub fn compact_request(text: &str) -> Option<Option<&str>> {
    let rest = text.trim().strip_prefix("/compact")?;
    if !(rest.is_empty() || rest.starts_with(char::is_whitespace)) {
        return None;
    }
    let instructions = rest.trim();
    Some((!instructions.is_empty()).then_some(instructions))
}

#[cfg(test)]
mod tests {
    use super::compact_request;

    #[test]
    fn compact_is_the_command_alone_or_with_instructions() {
        assert_eq!(compact_request("/compact"), Some(None));
        assert_eq!(
            compact_request(" /compact keep the API "),
            Some(Some("keep the API"))
        );
        assert_eq!(compact_request("/compaction"), None);
        assert_eq!(compact_request("please /compact"), None);
    }
}

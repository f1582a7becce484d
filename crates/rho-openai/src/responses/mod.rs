//! OpenAI Responses (`openai-responses`, pi-reference §5.2): request building with reasoning and
//! item replay, the tool-call id rules, and the stream folder.

pub mod convert;
mod errors;
pub mod ids;
mod items;
pub mod provider;
pub mod request;
pub mod stream;
mod usage;
pub mod wire;

pub use convert::convert_input;
pub use ids::{normalize_tool_call_id, short_hash};
pub use provider::ResponsesProvider;
pub use request::{request_headers, responses_request_body, responses_url, to_responses_request};
pub use stream::ResponsesFolder;

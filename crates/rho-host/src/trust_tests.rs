#![allow(clippy::unwrap_used)]

use super::*;

fn inputs(store: &TrustStore, has_resources: bool) -> TrustInputs<'_> {
    TrustInputs {
        flag: None,
        store: Some(store),
        default: DefaultProjectTrust::Ask,
        has_resources,
    }
}

#[test]
fn the_nearest_stored_decision_wins_and_is_written_as_pi_writes_it() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(work.path()).unwrap();
    let project = root.join("a").join("b");
    std::fs::create_dir_all(&project).unwrap();
    let store = TrustStore::new(home.path());
    assert_eq!(store.get(&project).unwrap(), None);
    store
        .set_many(&[(root.join("a"), Some(true)), (project.clone(), None)])
        .unwrap();
    assert_eq!(store.get(&project).unwrap(), Some(true));
    store.set_many(&[(project.clone(), Some(false))]).unwrap();
    assert_eq!(store.get(&project).unwrap(), Some(false));
    assert_eq!(
        std::fs::read_to_string(store.path()).unwrap(),
        format!(
            "{{\n  \"{}\": true,\n  \"{}\": false\n}}\n",
            root.join("a").display(),
            project.display()
        )
    );
}

#[test]
fn a_broken_store_is_an_error_in_pis_words() {
    let home = tempfile::tempdir().unwrap();
    let store = TrustStore::new(home.path());
    std::fs::write(store.path(), "[]").unwrap();
    assert_eq!(
        store.get(home.path()).unwrap_err().to_string(),
        format!(
            "Invalid trust store {}: expected an object",
            store.path().display()
        )
    );
    std::fs::write(store.path(), r#"{"/x": "yes"}"#).unwrap();
    assert_eq!(
        store.get(home.path()).unwrap_err().to_string(),
        format!(
            "Invalid trust store {}: value for \"/x\" must be true, false, or null",
            store.path().display()
        )
    );
}

#[test]
fn decisions_follow_pis_order() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let store = TrustStore::new(home.path());
    let cwd = work.path();
    let resolve = |inputs: TrustInputs<'_>| resolve_project_trust(&inputs, cwd).unwrap();
    assert_eq!(resolve(inputs(&store, false)), TrustDecision::Trusted);
    assert_eq!(resolve(inputs(&store, true)), TrustDecision::Ask);
    let always = TrustInputs {
        default: DefaultProjectTrust::Always,
        ..inputs(&store, true)
    };
    assert_eq!(resolve(always), TrustDecision::Trusted);
    let never = TrustInputs {
        default: DefaultProjectTrust::Never,
        ..inputs(&store, true)
    };
    assert_eq!(resolve(never), TrustDecision::Untrusted);
    store.set_many(&[(cwd.to_path_buf(), Some(false))]).unwrap();
    assert_eq!(resolve(always), TrustDecision::Untrusted);
    assert_eq!(resolve(inputs(&store, false)), TrustDecision::Untrusted);
    let approved = TrustInputs {
        flag: Some(true),
        ..inputs(&store, true)
    };
    assert_eq!(resolve(approved), TrustDecision::Trusted);
}

#[test]
fn resources_are_the_projects_rho_files_and_agents_skills_up_the_tree() {
    let work = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(work.path()).unwrap();
    let project = root.join("p");
    std::fs::create_dir_all(project.join(".rho").join("skills")).unwrap();
    std::fs::write(project.join(".rho").join("rules.toml"), "").unwrap();
    std::fs::create_dir_all(root.join(".agents").join("skills")).unwrap();
    assert_eq!(
        trust_requiring_resources(&project, None),
        [
            ".rho/rules.toml".to_owned(),
            ".rho/skills".to_owned(),
            root.join(".agents").join("skills").display().to_string()
        ]
    );
    // The user's own skills are not the project's.
    assert_eq!(
        trust_requiring_resources(&project, Some(&root)),
        [".rho/rules.toml", ".rho/skills"]
    );
}

#[test]
fn the_interactive_answers_are_pis() {
    let work = tempfile::tempdir().unwrap();
    let cwd = std::fs::canonicalize(work.path()).unwrap();
    let parent = cwd.parent().unwrap().to_path_buf();
    let options = trust_options(&cwd);
    let labels: Vec<&str> = options.iter().map(|o| o.label.as_str()).collect();
    let parent_label = format!("Trust parent folder ({})", parent.display());
    assert_eq!(
        labels,
        [
            "Trust",
            parent_label.as_str(),
            "Trust (this session only)",
            "Do not trust",
            "Do not trust (this session only)"
        ]
    );
    assert_eq!(
        options[1].updates,
        [(parent, Some(true)), (cwd.clone(), None)]
    );
    assert_eq!(options[3].updates, [(cwd, Some(false))]);
    assert!(options[4].updates.is_empty() && !options[4].trusted);
}

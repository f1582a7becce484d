//! Route 3: the sandbox's holes — device nodes, metadata outside, `/dev/shm`, unix, UDP and
//! abstract sockets with `--no-network`, other processes' environments and signals (bash
//! killing rho itself).

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::process::{Command, Stdio};
use std::time::Duration;

use super::harness::{Arena, bash, sandbox_ready};

#[test]
fn devices_metadata_and_shared_memory_outside_stay_untouched() {
    if !sandbox_ready() {
        return;
    }
    let arena = Arena::new();
    let target = arena.outside.join("outside.txt");
    let before = std::fs::metadata(&target).unwrap();
    let shm_name = format!("rho-attack-{}", std::process::id());
    let out = target.display().to_string();
    let turns = vec![vec![
        bash("mknod disk b 8 0; mknod tty c 5 0; mkfifo ok-fifo; ls -l"),
        bash(&format!("chmod 000 '{out}'; chmod 777 '{out}'")),
        bash(&format!("touch -d 2000-01-01 '{out}'")),
        bash(&format!("chown 65534:65534 '{out}'")),
        bash(&format!("echo x > /dev/shm/{shm_name}; ls /dev/shm")),
    ]];
    let run = arena.attack(&[], &[], turns);
    let after = std::fs::metadata(&target).unwrap();
    assert_eq!(
        (
            after.permissions().mode(),
            after.mtime(),
            after.uid(),
            after.gid()
        ),
        (
            before.permissions().mode(),
            before.mtime(),
            before.uid(),
            before.gid()
        )
    );
    for device in ["disk", "tty"] {
        assert!(
            std::fs::symlink_metadata(arena.project.join(device)).is_err(),
            "a device node was made: {:?}",
            run.results()[0]
        );
    }
    // A FIFO is no device: the sandbox allows it.
    assert!(arena.project.join("ok-fifo").exists());
    assert!(!std::path::Path::new("/dev/shm").join(&shm_name).exists());
}

#[test]
fn a_command_cannot_kill_rho_or_read_and_signal_other_processes() {
    if !sandbox_ready() {
        return;
    }
    let arena = Arena::new();
    let mut victim = Command::new("sleep")
        .arg("60")
        .env("VICTIM_TOKEN", "SECRETKEY-victim")
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let pid = victim.id();
    let turns = vec![
        vec![
            bash("kill -9 $PPID; kill -TERM $PPID; echo still-here"),
            bash(&format!(
                "cat /proc/{pid}/environ | tr '\\0' '\\n'; kill -9 {pid}; kill -STOP {pid}"
            )),
        ],
        vec![bash("echo after")],
    ];
    let run = arena.attack(&[], &[], turns);
    let results = run.results();
    assert!(results[0].0.contains("still-here"), "{results:?}");
    assert_eq!(results.last().unwrap().0, "after\n");
    assert_eq!(victim.try_wait().unwrap(), None, "the victim was killed");
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    assert!(!status.contains("State:\tT"), "the victim was stopped");
    victim.kill().unwrap();
    victim.wait().unwrap();
}

#[test]
fn no_network_leaves_no_socket_open_unix_udp_or_abstract() {
    if !sandbox_ready() {
        return;
    }
    use std::os::linux::net::SocketAddrExt;
    let arena = Arena::new();
    let path = arena.outside.join("agent.sock");
    let unix = std::os::unix::net::UnixListener::bind(&path).unwrap();
    unix.set_nonblocking(true).unwrap();
    let udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    udp.set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    let udp_port = udp.local_addr().unwrap().port();
    let abstract_name = format!("rho-attack-{}", std::process::id());
    let address =
        std::os::unix::net::SocketAddr::from_abstract_name(abstract_name.as_bytes()).unwrap();
    let abstract_listener = std::os::unix::net::UnixListener::bind_addr(&address).unwrap();
    abstract_listener.set_nonblocking(true).unwrap();
    let python = |code: &str| bash(&format!("python3 -c '{code}' && echo CONNECTED"));
    let turns = vec![vec![
        python(&format!(
            "import socket; s=socket.socket(socket.AF_UNIX); s.connect(\"{}\")",
            path.display()
        )),
        python(&format!(
            "import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b\"hi\", (\"127.0.0.1\", {udp_port}))"
        )),
        python(&format!(
            "import socket; s=socket.socket(socket.AF_UNIX); s.connect(\"\\0{abstract_name}\")"
        )),
        bash(&format!(
            "echo hi > /dev/udp/127.0.0.1/{udp_port} && echo CONNECTED"
        )),
    ]];
    let run = arena.attack(&["--no-network"], &[], turns);
    for (text, _) in run.results() {
        assert!(!text.contains("CONNECTED"), "{text}");
    }
    assert!(unix.accept().is_err());
    assert!(abstract_listener.accept().is_err());
    let mut buffer = [0u8; 16];
    assert!(udp.recv(&mut buffer).is_err(), "a datagram arrived");
}

"""English sentences of the held-out sessions set: frames, rule and user banks, and six projects.

Hand-written for this set only (see ``truth_sessions.py``); the slots are explained in
``sessions_schema.py``.
"""

from __future__ import annotations

from sessions_schema import Item, Language, Version, frames
from sessions_themes_en import THEMES

from memdir.model.memory_type import MemoryType

__all__ = ["LANGUAGE"]

P, F, R, U = MemoryType.PROJECT, MemoryType.FEEDBACK, MemoryType.REFERENCE, MemoryType.USER

KINDS = {
    "port": frames(
        P,
        """
        names
        - {C} port ({E})
        - {E} {c} port
        - Port of {c} in {e}
        - {C} on {e}: port
        renames
        - {E} {c} port changed
        - {C} moved to port {v} ({E})
        - New {e} port for {c}
        descriptions
        - {c} in {e} listens on port {v}, not the default
        - Port {v} is the one {c} uses on {e}
        - Which port {c} is exposed on in {e} ({v})
        redescriptions
        - {c} on {e} now answers on port {v} instead of {old}
        - {E} port for {c} changed to {v}
        - Since {day}, connect to {e} {c} on {v}
        states
        - {c} runs on port {v} in {e}.
        - in {e}, {c} is exposed on port {v}.
        - {c} listens on {v} in the {e} environment.
        restates
        - {c} in {e} moved from port {old} to {v}.
        - as of {day}, {e} {c} is reachable on port {v}; {old} no longer answers.
        - {e} {c} now sits on port {v}.
        whys
        - the stock port is already taken on that host.
        - several services share the {e} box, so each one gets its own port.
        - that is how the {e} compose file maps it; nobody remembers why.
        rewhys
        - infra re-mapped the ports when {e} moved to the shared cluster on {day}.
        - connections now go through a pooler that listens on its own port.
        - the old port clashed with the metrics exporter.
        hows
        - use {v} in connection strings and port-forwards for {e}.
        - when a connection to {e} is refused, check the port before anything else.
        - set the port explicitly in any .env that points at {e}.
        questions
        - what port is the {cq} on in {eq}?
        - getting connection refused from the {eq} {cq}, which port should I be using?
        - which port do I forward to reach {cq} in {eq}?
        """,
    ),
    "host": frames(
        P,
        """
        names
        - {C} host ({E})
        - {E} {c} hostname
        - Where {c} lives in {e}
        renames
        - {C} moved host ({E})
        - New {e} host for {c}
        - {E} {c} hostname changed
        descriptions
        - {e} {c} is at {v}
        - Hostname for {c} in {e}: {v}
        - {c} ({e}) runs on {v}
        redescriptions
        - {e} {c} moved to {v}
        - {c} in {e} now lives at {v}, old host retired
        - Use {v} for {e} {c} from {day} on
        states
        - {c} in {e} is hosted at `{v}`.
        - the {e} instance of {c} runs on `{v}`.
        - point anything that talks to {e} {c} at `{v}`.
        restates
        - {c} in {e} was moved from `{old}` to `{v}`.
        - {e} {c} now runs on `{v}`; `{old}` is being decommissioned.
        - new host for {c} in {e}: `{v}` (since {day}).
        whys
        - the {e} hosts are not in public DNS, so the full name has to be spelled out.
        - there are two similar hosts and the other one is a read replica.
        - split-DNS on the VPN only resolves this exact name.
        rewhys
        - the old box was retired in the migration on {day}.
        - infra consolidated {e} onto new machines.
        - the service moved to the managed cluster.
        hows
        - use `{v}` in configs and SSH commands for {e}.
        - double-check the hostname when a script hangs on connect.
        - update local .env files that still point at an older name.
        questions
        - what's the hostname for the {eq} {cq}?
        - where is {cq} running in {eq}, which host?
        - which machine do I ssh into for {cq} on {eq}?
        """,
    ),
    "replicas": frames(
        P,
        """
        names
        - {C} replica count ({E})
        - {E} {c} replicas
        - How many {c} pods in {e}
        renames
        - {C} scaled to {v} ({E})
        - {E} {c} replica count changed
        - {C} scaling in {e}
        descriptions
        - {c} runs {v} replicas in {e}
        - {e} {c} is deployed with {v} pods
        - Replica count for {c} on {e} is {v}
        redescriptions
        - {c} in {e} scaled from {old} to {v} replicas
        - {e} {c} now runs {v} pods
        - Changed the {e} replica count of {c} to {v}
        states
        - {c} runs with {v} replicas in {e}.
        - {e} has {v} pods of {c}.
        - the {e} deployment of {c} is pinned at {v} replicas.
        restates
        - {c} in {e} went from {old} to {v} replicas.
        - {e} {c} is now at {v} replicas (set on {day}).
        - scaled {c} in {e} to {v} pods.
        whys
        - that is what the autoscaler floor is set to.
        - more replicas exhausted the database connections last time.
        - sized for current traffic plus headroom during deploys.
        rewhys
        - re-sized after the load test on {day}.
        - the autoscaler floor was changed.
        - sized again for current traffic.
        hows
        - don't change the count by hand; edit the Helm values for {e}.
        - expect {v} pods when reading logs or dashboards for {e}.
        - keep the connection pool math in line with {v} pods.
        questions
        - how many replicas does {cq} run in {eq}?
        - what's the pod count for {cq} on {eq}?
        - how many instances of the {cq} are up in {eq}?
        """,
    ),
    "owner": frames(
        P,
        """
        names
        - {C} owner
        - Who owns {c}
        - {C} ownership
        renames
        - {C} has a new owner
        - {C} owner changed
        - {C} handed over to {v}
        descriptions
        - {v} owns {c} and reviews its PRs
        - {c} is owned by {v}
        - Ask {v} about anything in {c}
        redescriptions
        - {v} took over {c} from {old}
        - {c} is now owned by {v}
        - Ownership of {c} moved to {v}
        states
        - {v} owns {c}.
        - {c} belongs to {v}, who reviews every change to it.
        - the owner of {c} is {v}.
        restates
        - {v} took over {c} from {old} on {day}.
        - {c} has a new owner: {v}. {old} moved to another team.
        - ownership of {c} passed to {v}.
        whys
        - CODEOWNERS routes the reviews to them.
        - they wrote most of it and hold the context.
        - the team split the areas at the start of the quarter.
        rewhys
        - {old} moved to another team.
        - the reorg on {day} reassigned services.
        - {old} handed it over before going on leave, for good.
        hows
        - tag {v} on PRs that touch {c}.
        - send questions about {c} to {v} first.
        - add {v} as a reviewer before merging changes to {c}.
        questions
        - who owns the {cq}?
        - who should review my change to {cq}?
        - who do I ask about the {cq}?
        """,
    ),
    "dashboard": frames(
        R,
        """
        names
        - {C} dashboard
        - Grafana board for {c}
        - {C} metrics dashboard
        renames
        - {C} dashboard moved
        - New {c} dashboard
        - {C} dashboard (new link)
        descriptions
        - Grafana dashboard for {c}: {v}
        - Where to look at {c} metrics
        - {c} latency and error panels live at {v}
        redescriptions
        - {c} dashboard moved to {v}
        - New link for {c} metrics: {v}
        - {c} panels rebuilt at {v}
        states
        - {c} metrics are on {v}.
        - dashboard for {c}: {v}
        - latency, error rate and saturation for {c} are at {v}.
        restates
        - the {c} dashboard moved to {v}; the old board at {old} is frozen.
        - {c} has a rebuilt dashboard at {v}.
        - use {v} for {c} metrics from now on.
        whys
        - check it first when {c} alerts fire.
        - the p99 panel is the useful one.
        - it has a per-endpoint breakdown.
        rewhys
        - moved during the Grafana folder cleanup on {day}.
        - the old one had broken queries after the metric rename.
        - the new board merges the two old ones.
        hows
        - link it in incident notes about {c}.
        - the time picker defaults to 6 hours; widen it for slow leaks.
        - pin it when debugging {c}.
        questions
        - where's the dashboard for {cq}?
        - link to the {cq} metrics?
        - where can I see latency graphs for the {cq}?
        """,
    ),
    "date": frames(
        P,
        """
        names
        - {X} date
        - {X} scheduled
        - When is {x}
        renames
        - {X} moved
        - {X} rescheduled
        - New date for {x}
        descriptions
        - {x} is set for {v}
        - {x} planned on {v}
        - Target date for {x}: {v}
        redescriptions
        - {x} pushed to {v} (was {old})
        - {x} now on {v}
        - New {x} date is {v}
        states
        - {x} is scheduled for {v}.
        - we are aiming at {v} for {x}.
        - {x} happens on {v}.
        restates
        - {x} moved from {old} to {v}.
        - {x} was rescheduled on {day}; the new date is {v}.
        - {x} is now {v}.
        whys
        - agreed at the planning meeting.
        - it has to land before the end-of-quarter reporting.
        - it is tied to a partner's release train.
        rewhys
        - QA found blockers in the last round.
        - the other side asked for more time.
        - a dependency slipped, so the whole plan moved.
        hows
        - plan merges so that nothing risky lands in the days before {v}.
        - mention the date when scoping work that depends on {x}.
        - flag anything that could threaten {v} early.
        questions
        - when is {xq}?
        - what's the date for {xq} again?
        - how much time do we have before {xq}?
        """,
    ),
    "tool": frames(
        P,
        """
        names
        - {X} tool
        - Tool for {x}
        - {X}: use {v}
        renames
        - Switched {x} to {v}
        - {X} tool replaced
        - {X} now {v}
        descriptions
        - {x}: we use {v}
        - We use {v} for {x}
        - {v} is the {x} tool in {p}
        redescriptions
        - {x} moved from {old} to {v}
        - Replaced {old} with {v} for {x}
        - {v} now handles {x}
        states
        - for {x}, {p} uses {v}.
        - we use {v} for {x}.
        - {v} is the tool for {x}; nothing else is configured.
        restates
        - {x} switched from {old} to {v}.
        - {old} was dropped for {x}; {v} replaces it (since {day}).
        - {x} now runs on {v}.
        whys
        - it is what the CI images ship with.
        - the team standardised on it last year.
        - it was the only option that worked with the monorepo layout.
        rewhys
        - {old} was slow and flaky in CI.
        - {old} is no longer maintained.
        - the team voted to move during the tooling review on {day}.
        hows
        - don't suggest alternatives for {x}; use {v} commands.
        - write any new config for {x} against {v}.
        - when a doc mentions another tool for {x}, translate it to {v}.
        questions
        - what do we use for {xq}?
        - which tool should I use for {xq} here?
        - how do I do {xq} in this repo, what's the tool?
        """,
    ),
    "version": frames(
        P,
        """
        names
        - {X} version
        - {X} pinned version
        - Which {x} we run
        renames
        - {X} upgraded to {v}
        - {X} version bump
        - {X} upgrade
        descriptions
        - {p} runs on {x} {v}
        - {x} is pinned to {v}
        - Target {x} {v}, nothing newer
        redescriptions
        - {x} upgraded from {old} to {v}
        - {p} is now on {x} {v}
        - {x} bumped to {v}
        states
        - {p} is pinned to {x} {v}.
        - {x} {v} is the version everything runs on.
        - we run {x} {v} in CI and in prod.
        restates
        - {x} was upgraded from {old} to {v}.
        - since {day} everything runs on {x} {v}.
        - {x} is {v} now.
        whys
        - a dependency breaks on newer releases.
        - the production images are built from that base.
        - the platform team only supports that line.
        rewhys
        - {old} reached end of life.
        - the blocking dependency finally shipped a fix.
        - the new base images came out on {day}.
        hows
        - don't use syntax or APIs newer than {x} {v}.
        - set the local toolchain to {v} before running the tests.
        - check compatibility with {v} before adding a dependency.
        questions
        - what {xq} version are we on?
        - which version of {xq} should I install locally?
        - can I use the newest {xq} features, what version do we run?
        """,
    ),
    "metric": frames(
        P,
        """
        names
        - {X}
        - {X} baseline
        - {X} measurement
        renames
        - {X} improved
        - {X} after the fix
        - {X} re-measured
        descriptions
        - {x} measured at {v}
        - Current {x}: {v}
        - {x} sits at {v}
        redescriptions
        - {x} is now {v} (was {old})
        - New measurement of {x}: {v}
        - {x} re-measured at {v}
        states
        - {x} is {v}.
        - measured {x}: {v}.
        - {x} came out at {v} on {day}.
        restates
        - {x} changed from {old} to {v}.
        - re-measured on {day}: {x} is {v}.
        - {x} now stands at {v} (previously {old}).
        whys
        - this is the number the team tracks week to week.
        - it is the baseline for the performance work.
        - product asked for it in the weekly report.
        rewhys
        - the caching change landed on {day}.
        - this is after the query rewrite.
        - the CI runners were upgraded.
        hows
        - quote {v} as the current figure, not older numbers.
        - compare new measurements against {v}.
        - treat anything much worse than {v} as a regression.
        questions
        - what's {xq} right now?
        - how is {xq} looking these days?
        - what figure do we have for {xq}?
        """,
    ),
    "limit": frames(
        P,
        """
        names
        - {X}
        - {X} setting
        - {X} config
        renames
        - {X} changed
        - New {X}
        - {X} updated
        descriptions
        - {x} is set to {v}
        - {x}: {v}
        - {x} is configured as {v}
        redescriptions
        - {x} changed from {old} to {v}
        - {x} is now {v}
        - {x} set to {v} on {day}
        states
        - {x} is {v}.
        - {x} is configured at {v}.
        - we set {x} to {v}.
        restates
        - {x} changed from {old} to {v}.
        - {x} is now {v}.
        - on {day} {x} was set to {v}.
        whys
        - tuned after load testing.
        - the systems downstream cannot take more.
        - it matches what the provider allows.
        rewhys
        - the old value caused timeouts under load.
        - the provider raised our quota.
        - an incident on {day} showed the old value was wrong.
        hows
        - don't hard-code it; it comes from config.
        - keep retries and client settings consistent with {v}.
        - keep {v} in mind when debugging related errors.
        questions
        - what's {xq} set to?
        - what is {xq} at the moment?
        - how is {xq} configured now?
        """,
    ),
    "schedule": frames(
        P,
        """
        names
        - {X} schedule
        - When {x} runs
        - {X} cron
        renames
        - {X} schedule changed
        - {X} moved
        - New time for {x}
        descriptions
        - {x} runs {v}
        - {x} is scheduled {v}
        - Cron for {x}: {v}
        redescriptions
        - {x} now runs {v} (was {old})
        - {x} moved to {v}
        - {x} rescheduled: {v}
        states
        - {x} runs {v}.
        - {x} is on cron, {v}.
        - {x} kicks off {v}.
        restates
        - {x} moved from {old} to {v}.
        - {x} now runs {v}.
        - since {day}, {x} runs {v}.
        whys
        - it has to finish before business hours.
        - it competes with the backups otherwise.
        - the upstream data lands just before.
        rewhys
        - the old slot overlapped with the backup window.
        - upstream moved their export.
        - people wanted fresher data.
        hows
        - don't trigger {x} by hand around its slot.
        - account for the schedule when debugging stale data.
        - expect load spikes around the run.
        questions
        - when does {xq} run?
        - how often does {xq} kick off?
        - what's the schedule of {xq}?
        """,
    ),
    "flag": frames(
        P,
        """
        names
        - {X} rollout
        - Flag: {x}
        - {X} flag status
        renames
        - {X} rollout widened
        - {X} flag update
        - {X} rollout status
        descriptions
        - The {x} flag is on for {v}
        - {x} rolled out to {v}
        - Rollout of {x}: {v}
        redescriptions
        - {x} now on for {v} (was {old})
        - {x} rollout moved to {v}
        - {X} flag updated: {v}
        states
        - the {x} flag is on for {v}.
        - {x} is rolled out to {v}.
        - flag `{xs}`: {v}.
        restates
        - {x} went from {old} to {v}.
        - {x} is on for {v} since {day}.
        - {x} now reaches {v}.
        whys
        - rolling out gradually to watch the error rates.
        - support has to be trained first.
        - the feature still needs a backfill.
        rewhys
        - error rates stayed flat at the previous step.
        - support signed off on {day}.
        - the last step went fine, so it was widened.
        hows
        - check the flag before debugging user reports about {x}.
        - don't remove the flag code yet.
        - test both flag states in new code paths.
        questions
        - how far along is the {xq} rollout?
        - is {xq} on for everyone yet?
        - who gets {xq} right now?
        """,
    ),
    "tracker": frames(
        R,
        """
        names
        - {X} issue tracker
        - Where {x} go
        - {X} tickets
        renames
        - {X} tickets moved
        - {X} tracker changed
        - New board for {x}
        descriptions
        - {x} are tracked in {v}
        - File {x} in {v}
        - {v} holds {x}
        redescriptions
        - {x} moved to {v}
        - {x} now go to {v}
        - New tracker for {x}: {v}
        states
        - {x} are tracked in {v}.
        - file {x} in {v}.
        - {x} live in {v}.
        restates
        - {x} moved from {old} to {v}.
        - {x} now go to {v}; {old} is archived.
        - use {v} for {x} from {day} on.
        whys
        - triage happens on Mondays.
        - label tickets with the component.
        - link the ticket in the PR.
        rewhys
        - moved after the tracker migration.
        - the old board was archived on {day}.
        - the teams were merged into one board.
        hows
        - search there before opening a duplicate.
        - priority P1 pages the on-call.
        - add reproduction steps, the triager asks every time.
        questions
        - where do I file {xq}?
        - which board are {xq} tracked on?
        - where should {xq} go?
        """,
    ),
    "scope": frames(
        P,
        """
        names
        - {X} scope
        - What {x} covers
        - {X} plan
        renames
        - {X} re-scoped
        - {X} scope changed
        - New scope for {x}
        descriptions
        - {x} covers {v}
        - Scope of {x}: {v}
        - {x} is about {v}
        redescriptions
        - {x} now covers {v} instead of {old}
        - {x} re-scoped to {v}
        - Changed scope: {x} is now {v}
        states
        - {x} covers {v}.
        - scope of {x}: {v}.
        - {x} is {v}, nothing more.
        restates
        - {x} was re-scoped: it now covers {v} (it used to be {old}).
        - since {day}, {x} is {v}.
        - {x} changed to {v}.
        whys
        - agreed in planning so that each step can ship on its own.
        - the order follows the dependencies between the pieces.
        - it keeps every step small enough to roll back.
        rewhys
        - the earlier plan did not fit the time left.
        - a dependency moved, so the pieces were reshuffled on {day}.
        - review found the original cut too big.
        hows
        - don't pull work from later steps into {x}.
        - check which step a task belongs to before starting it.
        - link PRs to {x} in their description.
        questions
        - what's in {xq}?
        - what does {xq} cover?
        - what are we doing in {xq}?
        """,
    ),
    "channel": frames(
        R,
        """
        names
        - {X} channel
        - Where {x} go
        - Slack channel for {x}
        renames
        - {X} channel moved
        - New channel for {x}
        - {X} channel renamed
        descriptions
        - {x} are posted in {v}
        - {v} is where {x} go
        - Channel for {x}: {v}
        redescriptions
        - {x} moved to {v}
        - {x} are now posted in {v}
        - {v} replaces {old} for {x}
        states
        - {x} go to {v}.
        - {v} is where {x} are posted.
        - post {x} in {v}.
        restates
        - {x} moved from {old} to {v}.
        - {x} are now in {v}; {old} was archived.
        - use {v} for {x} since {day}.
        whys
        - mention the on-call handle for anything urgent.
        - keep it to one thread per event.
        - the channel is muted for most people, so tag who you need.
        rewhys
        - the channels were reorganised on {day}.
        - the old channel mixed too many things.
        - it was renamed when the team merged.
        hows
        - link the runbook in the thread.
        - don't cross-post.
        - add a short summary line first.
        questions
        - where do {xq} get posted?
        - which channel should {xq} go to?
        - what's the channel for {xq}?
        """,
    ),
}


def _item(key: str, kind: MemoryType, questions: tuple[str, ...], *versions: Version) -> Item:
    return Item(key, kind, versions, questions)


V = Version

RULES = (
    _item(
        "real-db",
        F,
        ("should my integration test use a mocked database?", "can I stub out the DB layer in tests?"),
        V(
            "No mocked database in tests",
            "no-mock-db",
            "Integration tests must hit a real database, never mocks",
            "Don't mock the database in integration tests; start a real Postgres in a container.\n"
            "**Why:** mocked tests passed while a broken migration went to prod last year.\n"
            "**How to apply:** anything touching the data layer gets a real DB fixture.",
        ),
    ),
    _item(
        "commit-style",
        F,
        ("how should I write the commit message for this?", "what format do commit messages follow?"),
        V(
            "Conventional commits",
            "commit-message-style",
            "User wants conventional commit prefixes (feat:, fix:, chore:) on every commit",
            "Write commit messages as conventional commits: `feat: ...`, `fix: ...`, `chore: ...`.\n"
            "**Why:** the release notes tool parses the prefixes.\n"
            "**How to apply:** every commit, including fixups before a squash.",
        ),
        V(
            "Commit messages without prefixes",
            "commit-messages-plain",
            "Dropped the feat:/fix: prefixes; commit subjects are plain imperative sentences",
            "No more conventional-commit prefixes. Subject line is a plain imperative sentence under 72 chars, "
            "body says why.\n"
            "**Why:** release notes are now written by hand, and the user found the prefixes noisy.\n"
            "**How to apply:** e.g. `Retry webhook delivery on 502` rather than `fix: retry ...`.",
        ),
    ),
    _item(
        "no-summary",
        F,
        ("do you need to recap what you changed at the end of each reply?",),
        V(
            "Terse replies, no trailing summary",
            "no-trailing-summary",
            "User does not want a summary of the work at the end of responses",
            "Skip the closing summary of what was done.\n"
            '**Why:** user said "I can read the diff".\n'
            "**How to apply:** every reply; end when the work ends.",
        ),
    ),
    _item(
        "small-prs",
        F,
        ("how big can this PR get before I split it?", "is it ok to put the refactor and the feature in one PR?"),
        V(
            "Keep PRs small",
            "small-prs",
            "PRs should stay under ~400 changed lines; split refactors from behaviour changes",
            "Keep pull requests under roughly 400 changed lines, and never mix a refactor with a behaviour change.\n"
            "**Why:** big mixed PRs sat unreviewed for a week.\n"
            "**How to apply:** propose a split before writing code when a task looks bigger.",
        ),
    ),
    _item(
        "force-push",
        F,
        ("can you force push my branch to clean up history?",),
        V(
            "Ask before force-pushing",
            "ask-before-force-push",
            "Never force-push without asking, even on the user's own branches",
            "Always ask before any `git push --force`, including `--force-with-lease`.\n"
            "**Why:** a force-push once wiped a teammate's commits on a shared branch.\n"
            "**How to apply:** propose the command and wait for a yes.",
        ),
    ),
    _item(
        "test-command",
        F,
        ("how should I run the tests before pushing?", "which pytest flags do we use locally?"),
        V(
            "Running tests",
            "test-command",
            "Run tests with pytest -x -q, only the affected folder",
            "Run `pytest -x -q` on the folder you touched, not the whole suite.\n"
            "**Why:** the full suite takes 20 minutes on a laptop.\n"
            "**How to apply:** name the folder; CI runs everything.",
        ),
        V(
            "Full test suite before pushing",
            "full-suite-before-push",
            "Run the whole suite in parallel (pytest -n auto) before every push",
            "Before pushing, run the whole suite with `pytest -n auto`; the folder-only habit is over.\n"
            "**Why:** two pushes broke tests in other folders that the narrow runs missed; with xdist the "
            "suite now takes four minutes.\n"
            "**How to apply:** narrow runs while iterating, the full parallel run before `git push`.",
        ),
    ),
    _item(
        "type-hints",
        F,
        ("do new helper functions need type annotations?",),
        V(
            "Type hints on new code",
            "type-hints-required",
            "Every new function gets full type hints; mypy strict runs in CI",
            "Annotate every new function and method, return types included.\n"
            "**Why:** mypy --strict gates CI and the user reads signatures first.\n"
            "**How to apply:** no `Any` unless a library forces it; say why in a comment when it does.",
        ),
    ),
    _item(
        "comments",
        F,
        ("what kind of comments should I leave in this function?",),
        V(
            "Comments say why",
            "comments-why-not-what",
            "Code comments should explain why, never restate what the code does",
            "Comments explain intent and constraints, not mechanics.\n"
            "**Why:** user deletes comments like `# increment counter` in review.\n"
            "**How to apply:** if the code needs a what-comment, rename things instead.",
        ),
    ),
    _item(
        "error-messages",
        F,
        ("what should the error message say when the config file is missing?",),
        V(
            "Error messages must say how to fix",
            "actionable-errors",
            "Every user-facing error names what went wrong and how to fix it",
            "Error messages name the file or value at fault and the fix.\n"
            '**Why:** support tickets kept asking what "invalid config" meant.\n'
            "**How to apply:** `config.yaml: key 'port' must be a number (got 'abc')`, not `invalid config`.",
        ),
    ),
    _item(
        "dependencies",
        F,
        ("can I pull in a library for date parsing?", "am I allowed to add a new package to the project?"),
        V(
            "Ask before adding dependencies",
            "ask-before-new-deps",
            "Check with the user before adding any third-party dependency",
            "Don't add a dependency without asking first.\n"
            "**Why:** the lockfile got bloated and a licence problem slipped in once.\n"
            "**How to apply:** suggest the package and why, then wait.",
        ),
        V(
            "Dependency policy relaxed",
            "dependency-policy",
            "Small MIT/Apache/BSD deps can be added without asking; list them in the PR description",
            "New rule from the user: permissively licensed (MIT, Apache-2.0, BSD) and small packages may be added "
            "directly. Anything copyleft or over a few MB still needs a question first.\n"
            "**Why:** asking every time slowed work down for trivial packages.\n"
            "**How to apply:** list each new dependency with its licence in the PR description.",
        ),
    ),
    _item(
        "branch-names",
        F,
        ("what should I call the branch for this ticket?",),
        V(
            "Branch naming",
            "branch-naming",
            "Branches are named feature/<ticket>-<short-slug>",
            "Name branches `feature/<ticket>-<short-slug>`, e.g. `feature/PAY-214-retry-webhooks`.\n"
            "**Why:** the CI job links branches to tickets by that pattern.\n"
            "**How to apply:** bug fixes too; there is no `fix/` prefix.",
        ),
        V(
            "New branch name format",
            "branch-names-initials",
            "Branch names now start with the author's initials: <initials>/<ticket>-<slug>",
            "The team switched to `<initials>/<ticket>-<slug>` (the user's initials are `sk`), "
            "e.g. `sk/PAY-301-refund-ui`.\n"
            "**Why:** the ticket linker was rewritten and people wanted to find their own branches.\n"
            "**How to apply:** use the user's initials on every new branch.",
        ),
    ),
    _item(
        "logging",
        F,
        ("is a print statement fine for debugging output here?", "how should I log in the new module?"),
        V(
            "Structured logging only",
            "structured-logging",
            "Use the structured logger with key-value fields; no print() and no f-string log lines",
            'Log through the project\'s structured logger: `log.info("charge_created", charge_id=...)`.\n'
            "**Why:** logs are queried by field in the log search; free text is invisible there.\n"
            "**How to apply:** event names in snake_case, values as fields.",
        ),
    ),
    _item(
        "migrations-immutable",
        F,
        ("the last migration has a typo in a column default, can I just edit it?",),
        V(
            "Never edit an applied migration",
            "never-edit-applied-migrations",
            "Applied migrations are immutable; fix mistakes with a new migration",
            "Don't edit a migration once it has been applied anywhere (staging counts).\n"
            "**Why:** an edited migration left staging and prod with different schemas.\n"
            "**How to apply:** write a follow-up migration, even for a one-character fix.",
        ),
    ),
    _item(
        "no-reformat",
        F,
        ("should I run the formatter over the whole file while I'm in there?",),
        V(
            "Don't reformat unrelated code",
            "no-drive-by-reformat",
            "Diffs should only touch lines the change needs; no drive-by reformatting",
            "Keep diffs to the lines the change needs.\n"
            "**Why:** reformatting noise hid a real bug in review once.\n"
            "**How to apply:** if a file needs formatting, do it in a separate commit the user asked for.",
        ),
    ),
    _item(
        "todo-links",
        F,
        ("can I leave a TODO for the edge case and move on?",),
        V(
            "TODOs need a ticket",
            "todo-needs-ticket",
            "Every TODO comment must reference a ticket id",
            "A TODO without a ticket link gets rejected: write `# TODO(PAY-123): ...`.\n"
            "**Why:** the codebase had 300 orphan TODOs nobody owned.\n"
            "**How to apply:** ask for a ticket id if none exists yet.",
        ),
    ),
    _item(
        "changelog",
        F,
        ("do I need to touch the changelog for this fix?", "where do release notes for this change go?"),
        V(
            "Update the changelog",
            "update-changelog",
            "Every user-facing PR adds a line to CHANGELOG.md under Unreleased",
            "Add a line under `## Unreleased` in CHANGELOG.md for each user-facing change.\n"
            "**Why:** releases are cut straight from that section.\n"
            "**How to apply:** one line, past tense, with the PR number.",
        ),
        V(
            "Changelog is generated",
            "changelog-generated",
            "Don't edit CHANGELOG.md by hand any more; it is generated from PR titles and labels",
            "CHANGELOG.md is now generated at release time from PR titles and the `changelog:*` labels.\n"
            "**Why:** hand-edited entries caused merge conflicts on every PR.\n"
            "**How to apply:** write a clear PR title and set the label; never edit the file.",
        ),
    ),
    _item(
        "utc",
        F,
        ("what timezone should timestamps be stored in?",),
        V(
            "Times in UTC",
            "store-times-utc",
            "Store and compare timestamps in UTC; convert to local time only for display",
            "All stored times are UTC (timezone-aware); conversion happens only at the display edge.\n"
            "**Why:** a DST change double-ran the daily jobs once.\n"
            "**How to apply:** `datetime.now(UTC)`, never naive datetimes.",
        ),
    ),
    _item(
        "regression-tests",
        F,
        ("does this one-line bug fix need a test?",),
        V(
            "Bug fixes come with a regression test",
            "regression-test-per-fix",
            "Each bug fix adds a test that fails without the fix",
            "Every fix ships with a test that reproduces the bug.\n"
            "**Why:** the same rounding bug came back twice.\n"
            "**How to apply:** write the failing test first, then the fix.",
        ),
    ),
    _item(
        "friday-deploys",
        F,
        ("is it ok to deploy this on Friday afternoon?", "can we ship to prod at the end of the week?"),
        V(
            "No deploys late in the week",
            "no-friday-deploys",
            "No production deploys after Thursday 15:00",
            "Don't deploy to production after Thursday 15:00 local time.\n"
            "**Why:** weekend incidents with nobody around to roll back.\n"
            "**How to apply:** if a change is ready Friday, it waits for Monday.",
        ),
        V(
            "Friday deploys allowed again",
            "friday-deploys-ok",
            "Deploys any weekday are fine now that rollbacks are automatic",
            "The Thursday cut-off is gone: deploy any weekday until 16:00.\n"
            "**Why:** canary analysis now rolls back automatically, so a bad deploy undoes itself.\n"
            "**How to apply:** still no deploys on weekends or public holidays.",
        ),
    ),
    _item(
        "rebase",
        F,
        ("my branch is behind main, should I merge main into it?",),
        V(
            "Rebase, don't merge main",
            "rebase-not-merge",
            "Update feature branches by rebasing on main, never by merging main in",
            "Bring branches up to date with `git rebase main`; no merge commits from main.\n"
            "**Why:** the user wants a linear history for bisecting.\n"
            "**How to apply:** rebase, then ask before pushing since it needs a force-push.",
        ),
    ),
    _item(
        "secrets",
        F,
        ("can I paste the API key into the .env.example so others have it?",),
        V(
            "Never commit secrets",
            "no-secrets-in-repo",
            "No secrets in commits, .env.example or chat; reference the secret's name instead",
            "Never write real keys or tokens into the repo or into messages.\n"
            "**Why:** a leaked key had to be rotated across three services.\n"
            "**How to apply:** `.env.example` gets placeholders and a comment naming where the value lives.",
        ),
    ),
    _item(
        "code-first",
        F,
        ("how much explanation do you want around code changes?",),
        V(
            "Code first, explanation short",
            "code-first-answers",
            "User wants the code change first and at most a few lines of explanation",
            "Show the change first; explain in two or three lines after, only what isn't obvious.\n"
            "**Why:** user said long preambles bury the answer.\n"
            "**How to apply:** skip restating the question.",
        ),
    ),
    _item(
        "sql-layer",
        F,
        ("can I write a raw SQL query in the view to speed this up?",),
        V(
            "Raw SQL only in repositories",
            "raw-sql-in-repository-layer",
            "Raw SQL belongs in the repository layer, never in handlers or views",
            "Keep raw SQL inside `repositories/`; handlers call repository functions.\n"
            "**Why:** SQL spread across views made the last schema change take a week.\n"
            "**How to apply:** add a repository method even for a one-off query.",
        ),
    ),
)

USERS = (
    _item(
        "role",
        U,
        ("do you remember what my background is?", "how much should you explain about the frontend stuff for me?"),
        V(
            "User role",
            "user-role",
            "Senior backend engineer, ten years of Go, new to React",
            "The user is a senior backend engineer (about ten years of Go, some Python) and is new to React "
            "and the frontend build. Explain frontend concepts by analogy to backend ones.",
        ),
    ),
    _item(
        "timezone",
        U,
        ("what timezone am I in, for scheduling the reminder?", "when is my working day, roughly, in UTC?"),
        V(
            "User location and timezone",
            "user-timezone",
            "User works from Lisbon (WET/WEST)",
            "The user is based in Lisbon, so Western European time. Propose meeting slots and cron examples in "
            "that zone.",
        ),
        V(
            "User moved to Toronto",
            "user-relocated-toronto",
            "User relocated to Toronto; now on Eastern Time",
            "The user mentioned they moved to Toronto this month and now work on Eastern Time (UTC-4 in summer). "
            "Use ET for times.",
        ),
    ),
    _item(
        "editor",
        U,
        ("what editor do I use, so you can give me the right shortcut?",),
        V(
            "User's editor",
            "user-editor",
            "User edits in Neovim with LSP; no VS Code",
            "The user works in Neovim (lazy.nvim config, LSP through nvim-lspconfig). Give Vim keystrokes or "
            "CLI commands, not VS Code menus.",
        ),
    ),
    _item(
        "machine",
        U,
        ("which machine am I developing on?",),
        V(
            "User's machine",
            "user-machine",
            "MacBook Pro M3 (arm64); Linux only on CI",
            "The user develops on an Apple Silicon MacBook (arm64, macOS). Watch for amd64-only Docker images; "
            "suggest `--platform linux/amd64` when needed.",
        ),
    ),
    _item(
        "team",
        U,
        ("which team am I on now?", "who is my manager these days?"),
        V(
            "User's team",
            "user-team",
            "User is on the core product team, reporting to Dana",
            "The user is on the core product team and reports to Dana (engineering manager).",
        ),
        V(
            "User changed teams",
            "user-team-change",
            "User moved to the platform team; new manager is Luis",
            "The user joined the platform team after the reorg; their manager is now Luis. They still get pinged "
            "about product code they wrote.",
        ),
    ),
    _item(
        "hours",
        U,
        ("when do I usually stop working?",),
        V(
            "User's working hours",
            "user-hours",
            "User works early, roughly 7:00 to 15:30 local, and is offline after",
            "The user starts around 7:00 and stops around 15:30 local time; after that they are offline. "
            "Long-running jobs should finish or notify before then.",
        ),
    ),
    _item(
        "rust",
        U,
        ("how much Rust do I know?",),
        V(
            "User is learning Rust",
            "user-learning-rust",
            "User is learning Rust on the side and wants ownership/borrowing explained when it comes up",
            "The user is learning Rust in their spare time. When Rust code comes up, point out ownership and "
            "lifetime details explicitly; skip that for Go and Python.",
        ),
    ),
    _item(
        "lists",
        U,
        ("do I prefer tables or lists in answers?",),
        V(
            "Formatting preference",
            "user-formatting",
            "User reads answers in a narrow terminal: prefer lists to wide tables",
            "The user reads replies in a narrow terminal pane; wide Markdown tables wrap badly. Use short lists "
            "unless a table is asked for.",
        ),
    ),
    _item(
        "name",
        U,
        ("what name should you use for me in the PR description?",),
        V(
            "User's name",
            "user-name",
            "User goes by Sam (full name Samira Khan), handle @skhan",
            "The user is Samira Khan and goes by Sam; GitHub handle `@skhan`. Initials `sk`.",
        ),
    ),
    _item(
        "english",
        U,
        ("is English my first language?",),
        V(
            "User's languages",
            "user-languages",
            "User's first language is Portuguese; plain English works best",
            "The user's first language is Portuguese. They read English fluently but prefer plain wording over "
            "idioms; Portuguese is fine for quick chat.",
        ),
    ),
    _item(
        "goal",
        U,
        ("what am I trying to achieve this quarter career-wise?",),
        V(
            "User's goal this quarter",
            "user-quarter-goal",
            "User is working toward a staff promotion and wants to write more design docs",
            "The user is aiming for a staff engineer promotion this cycle; design docs and cross-team work count. "
            "Offer to draft design-doc sections when a change is architectural.",
        ),
    ),
    _item(
        "oncall",
        U,
        ("how often am I on call?",),
        V(
            "User's on-call rotation",
            "user-on-call",
            "User is on the on-call rotation one week in four",
            "The user is on call one week out of four (weeks start Monday 09:00). During on-call weeks they "
            "prefer small, safe tasks.",
        ),
        V(
            "User's on-call rotation changed",
            "user-on-call-change",
            "User now on call one week in six after the rotation grew",
            "Two people joined the rotation, so the user is on call one week in six now, still starting Mondays "
            "at 09:00.",
        ),
    ),
)

OFFTOPIC = (
    "what's a good way to keep a sourdough starter alive?",
    "can you explain the Monty Hall problem simply?",
    "write me a limerick about a sleepy cat",
    "how many moons does Jupiter have?",
    "recommend a good book on negotiation",
    "what's a quick way to convert Celsius to Fahrenheit in my head?",
    "what's the capital of Mongolia?",
    "help me word a birthday message for my aunt",
    "what are some good stretches for lower back pain?",
    "tell me a fun fact about octopuses",
    "how do I plan a three-day trip to Kyoto?",
    "what's the best way to learn touch typing?",
    "can you explain the halting problem in plain words?",
    "how long do I boil an egg for a runny yolk?",
    "write a short poem about the sea at night",
    "summarize the plot of Hamlet in three sentences",
    "what's the tallest mountain in Africa?",
    "what are the rules for castling in chess?",
    "how do solar panels turn light into electricity?",
    "how do you say good morning in Italian?",
    "suggest some names for a board game night group",
    "why is the sky blue?",
    "what should I pack for a week in Scotland in October?",
    "what's the difference between a crocodile and an alligator?",
    "how does compound interest work?",
)

LANGUAGE = Language(
    code="en",
    kinds=KINDS,
    rules=RULES,
    users=USERS,
    themes=THEMES,
    offtopic=OFFTOPIC,
    date=lambda y, m, d: f"{y}-{m:02d}-{d:02d}",
    capitalize=True,
)

#!/usr/bin/env python3
"""Deterministic generator of LinkUp's labelled relevance-evaluation corpus.

Writes tuning.json and heldout.json next to this file.  Python 3.11, stdlib only.
Every choice (wording alternatives, urls, id order, the topic split) comes from
random.Random(20261124), so re-running produces byte-identical files.

Labels come from generation: a document is relevant to a question iff it was
written for the question's topic, is not marked near=True (same vocabulary,
answers none of the topic's questions) and is not named in the question's
exclude=[...] list (the question is narrower than its topic); a post is similar
to a question iff it was written for the question's topic and is not named in
that exclude list (its need differs).  Exclusions name documents by key= or
title prefix and posts by text prefix.  Distractor documents and unrelated
posts are relevant to no question.  The labels were written without looking at
the ranking code.  See tests/quality/README.md ("Label review") for the review that shaped them.

Template syntax inside titles, bodies and post texts: "{a|b|c}" is replaced by
one alternative chosen by the seeded generator.
"""

import json
import os
import random
import re
import string
import sys

SEED = 20261124
HERE = os.path.dirname(os.path.abspath(__file__))

# --------------------------------------------------------------------------
# small constructors
# --------------------------------------------------------------------------


def F(title, body, ext=None, site=None, user=None, name=None, key=None, near=False):
    """A OneDrive/SharePoint file.  user= puts it in that person's OneDrive."""
    return dict(kind="file", title=title, body=body, ext=ext, site=site, user=user, name=name, key=key, near=near)


def L(title, body, lst=None, site=None, key=None, near=False):
    """A SharePoint list item."""
    return dict(kind="list_item", title=title, body=body, lst=lst, site=site, key=key, near=near)


def M(title, body, key=None, near=False):
    """An Outlook mail."""
    return dict(kind="mail", title=title, body=body, key=key, near=near)


def P(text, tags=(), cat="question"):
    return dict(text=text, tags=list(tags), category=cat)


def Q(style, text, tags, cat, aq, exclude=()):
    return dict(style=style, text=text, tags=list(tags), category=cat, agentQueries=list(aq), exclude=list(exclude))


TOPICS = []


def topic(key, domain, site, lst, concept, docs, posts, questions):
    TOPICS.append(dict(key=key, domain=domain, site=site, lst=lst, concept=concept.split(),
                       docs=docs, posts=posts, questions=questions))


# ==========================================================================
# ENGINEERING
# ==========================================================================

topic("k8s-limits", "eng", "Platform", "Runbooks",
      "kubernetes k8s pod pods evicted eviction evictions oomkilled limitrange kubectl cluster clusters node nodes",
      [
          F("Kubernetes resource requests and limits - Platform guide",
            "How to size CPU and memory requests and limits for {pods|workloads} on the shared {Kubernetes|k8s} clusters. "
            "Pods without explicit limits get the namespace default from the LimitRange and are the first to be evicted under node memory pressure.",
            ext="pdf"),
          L("Runbook: pod evicted or OOMKilled",
            "Run kubectl describe pod and read the last state. OOMKilled means the container went over its memory limit: raise the limit or fix the leak. "
            "'The node was low on resource: memory' means the node itself was under pressure and the kubelet evicted {BestEffort|Burstable} pods first."),
          M("[Platform] Default LimitRange and ResourceQuota in prod namespaces from 1 Dec",
            "From 1 December every namespace in the production {cluster|clusters} gets a default memory limit of 512Mi and a ResourceQuota. "
            "Set explicit requests and limits in your Helm values to avoid surprises."),
          F("Capacity planning for the EKS node groups",
            "Node groups, autoscaler settings and how much headroom we keep per cluster. Explains why the scheduler places pods by their requests, "
            "not their limits, and what that means for overcommitted nodes.", ext="xlsx", near=True),
          F("QoS classes cheat sheet (Guaranteed, Burstable, BestEffort)",
            "Which quality-of-service class a pod gets from its requests and limits, and in which order the kubelet kills containers when a node runs out of memory.",
            user="jiho_park"),
          M("Re: our batch jobs were evicted last night",
            "The evictions came from the batch {pods|jobs} having no memory requests, so the scheduler packed eight of them onto one node. "
            "Please add requests and limits as described in the Platform guide and the problem goes away."),
          L("쿠버네티스 리소스 제한 설정 가이드",
            "파드의 CPU/메모리 requests와 limits를 설정하는 방법입니다. 리소스 제한이 없는 파드는 노드 메모리가 부족할 때 가장 먼저 축출(eviction)됩니다."),
      ],
      [
          P("k8s OOMKilled help - my service restarts every few hours", ["devops"], "help"),
          P("How do you all pick memory requests for JVM services on {kubernetes|k8s}? Heap size vs container memory is confusing me.", [], "discussion"),
          P("파드가 계속 Evicted 상태로 바뀌는데 원인 아시는 분?", ["devops"], "question"),
      ],
      [
          Q("chatty", "Our pods keep getting evicted on the cluster, any internal guide on k8s resource limits?", ["devops"], "help",
            ["kubernetes resource limits", "pod eviction memory requests", "k8s cluster capacity guide"]),
          Q("keyword", "k8s pod evicted limits?", [], None,
            ["k8s pod evicted", "kubernetes resource requests limits", "pod eviction node memory pressure"]),
          Q("korean", "쿠버네티스 파드 메모리 limit 얼마로 잡아야 하나요?", ["devops"], "question",
            ["쿠버네티스 메모리 limit", "kubernetes memory requests limits", "pod resource sizing guide"]),
      ])

topic("db-backup", "eng", "DBA", "Runbooks",
      "database databases db backup backups restore restoring snapshot snapshots pitr postgres postgresql rds mysql",
      [
          F("Database backup policy",
            "All production {databases|DBs} (PostgreSQL on RDS and the self-hosted MySQL cluster) are backed up every night and kept for 35 days. "
            "WAL archiving additionally allows point-in-time recovery to any second of the last 7 days.", ext="pdf"),
          L("Runbook: restore a PostgreSQL database from an RDS snapshot",
            "Restore the snapshot into a new instance, verify row counts, then switch the service's connection string. Never restore over the production instance."),
          L("Runbook: point-in-time recovery for MySQL",
            "Use the binlog archive in S3 and the restore script in the dba-tools repo to recover a MySQL {database|schema} to a given timestamp."),
          M("Quarterly restore drill results - Q3",
            "In the Q3 drill the DBA team restored 12 production databases from backup; median time to a usable copy was 41 minutes. "
            "Two restores failed because of expired KMS grants, both fixed.", near=True),
          F("Requesting a database restore from the DBA team",
            "Open a DBA ticket with the instance name, the target time and whether you need a copy next to production or an in-place recovery. "
            "Copies are usually available within 2 hours."),
          M("[DBA] Nightly backup window moved to 02:00 KST",
            "From next week the automated snapshots of all RDS instances run at 02:00 KST instead of midnight. Expect slightly higher I/O latency during the window."),
          F("DB 백업 및 복구 절차",
            "운영 데이터베이스는 매일 밤 백업되어 35일간 보관됩니다. 특정 시점으로 복구가 필요하면 DBA 티켓을 생성하세요.",
            name="DB-Backup-Recovery-KR"),
      ],
      [
          P("Has anyone gotten a copy of a prod DB from last week's snapshot? How long did the DBA team take?", [], "discussion"),
          P("Rolled back a bad migration on staging — is there a way to get the {Postgres|PostgreSQL} data from before it?", ["devops"], "help"),
          P("DB 복구 요청은 어디에 하나요?", [], "question"),
      ],
      [
          Q("plain", "How often are our databases backed up and how do I restore one?", [], "question",
            ["database backup restore", "postgresql backup schedule point-in-time recovery", "database disaster recovery runbook"]),
          Q("acronym", "PITR on RDS - how far back can we go?", ["devops"], "question",
            ["PITR RDS", "point-in-time recovery retention", "database backup retention policy"],
            exclude=["DB 복구 요청은", "[DBA] Nightly backup window", "Runbook: point-in-time recovery for MySQL", "Requesting a database restore", "Runbook: restore a PostgreSQL"]),
          Q("typo", "need to resotre a postgress db to yesterday, who do i ask", [], "help",
            ["restore postgres database", "database restore request DBA", "point in time recovery postgresql"],
            exclude=["[DBA] Nightly backup window", "Runbook: point-in-time recovery for MySQL"]),
      ])

topic("cicd", "eng", "Engineering", "Runbooks",
      "cicd ci cd pipeline pipelines jenkins actions workflow workflows build builds deploy deployment runner runners argocd",
      [
          F("CI/CD at Contoso: the standard GitHub Actions pipeline",
            "Every service uses the shared workflow template: lint, test, build the container image, then deploy to staging with Argo CD. "
            "Production deploys need a green pipeline and an approved pull request.", ext="pptx"),
          L("Runbook: self-hosted runner queue is stuck",
            "If {jobs|workflow runs} wait for a runner for more than 10 minutes, check the runner autoscaler dashboard and restart the controller pod.", near=True),
          M("Jenkins shutdown on 31 January - migrate your jobs to GitHub Actions",
            "The legacy Jenkins server will be switched off at the end of January. Teams still building there must move their jobs to the shared Actions templates."),
          F("Continuous integration best practices",
            "Keep builds under ten minutes, cache dependencies, quarantine flaky tests and never merge on a red {build|check}."),
          F("Caching dependencies in Actions workflows",
            "Examples for caching cargo, npm and Gradle artifacts between runs, which cut our average build time by 40%.", user="sarah_lee", near=True),
          M("Re: Actions minutes at 80% of the monthly quota",
            "We are close to the organisation's limit of hosted runner minutes. Please enable caching and cancel superseded runs in your workflows.", near=True),
          F("New service checklist: repository, CI/CD pipeline, staging deploy",
            "Create the repo from a template, enable the standard Actions pipeline and add the service to Argo CD so that every merge {deploys|is deployed} to staging."),
          L("배포 파이프라인 설정 방법",
            "새 서비스의 CI/CD 파이프라인은 공통 워크플로 템플릿을 복사해서 시작하세요. 스테이징 배포는 Argo CD가 자동으로 처리합니다."),
      ],
      [
          P("Which CI should a brand-new repo use these days, Actions or Jenkins?", [], "question"),
          P("Is there a template for a new service's build + deploy setup? Don't want to copy-paste from another repo.", [], "question"),
          P("Jenkins 아직 쓰는 팀 있나요? 이전 작업 언제까지 해야 하는지 궁금합니다", [], "question"),
      ],
      [
          Q("plain", "How do I set up CI/CD for a new service?", ["devops"], "question",
            ["CI/CD new service setup", "GitHub Actions workflow template", "build deployment pipeline"]),
          Q("synonym", "Is there a standard continuous integration setup we're supposed to use for new repos?", [], "question",
            ["continuous integration standard setup", "CI pipeline template repository", "GitHub Actions build workflow"]),
          Q("tagged", "pipeline template?", ["devops", "ci"], None,
            ["pipeline template", "CI/CD workflow template", "GitHub Actions standard pipeline"]),
      ])

topic("oncall", "eng", "SRE", "Runbooks",
      "oncall pagerduty rotation rotations shift shifts escalation escalations pager paging handover",
      [
          F("On-call handbook",
            "Expectations for primary and secondary on-call: acknowledge pages within 5 minutes, hand over every Monday at 10:00 KST, "
            "escalate to the incident commander for SEV1. Swaps are allowed at any time as long as the schedule in PagerDuty is updated.", ext="pdf"),
          L("How to swap an on-call shift in PagerDuty",
            "Create an override in PagerDuty for the hours you {swap|trade} and post it in the team channel. The schedule owner does not need to approve."),
          F("Platform team on-call schedule 2026 H1",
            "Weekly rotation for the platform team with primary and secondary per week. Public holidays such as Seollal and Chuseok are marked.", ext="xlsx"),
          L("On-call swaps over public holidays",
            "For Seollal and Chuseok, swaps are agreed two weeks ahead in the team's on-call channel and entered as PagerDuty overrides by the schedule owner."),
          L("온콜 교대 변경 방법", "PagerDuty에서 override를 만들어 당번을 바꾸고 팀 채널에 공유하세요."),
      ],
      [
          P("Anyone willing to trade pager duty for the Chuseok week? I'll take any week in November.", ["devops"], "discussion"),
          P("Can I split my on-call week with a teammate, e.g. they take the weekend?", [], "question"),
          P("PagerDuty override didn't apply — I still got paged during my week off", [], "help"),
      ],
      [
          Q("keyword", "swap on-call shift pagerduty", [], None,
            ["swap on-call shift", "PagerDuty override schedule", "on-call rotation handbook"]),
          Q("chatty", "Hey folks, I'm on call next week but my sister's wedding is on Saturday 😅 how do I hand my shift to someone else, is there a process?",
            [], "help", ["on-call shift swap process", "PagerDuty override", "on-call rotation policy"]),
          Q("korean", "다음 주 온콜 당번 바꾸려면 어떻게 하나요?", ["devops"], "question",
            ["온콜 교대", "on-call swap PagerDuty", "on-call rotation schedule"]),
      ])

topic("code-review", "eng", "Engineering", "Engineering Handbook",
      "review reviews reviewer reviewers approval approvals approve codeowners pr prs merge merging",
      [
          F("Code review policy",
            "Every pull request needs one approval from a CODEOWNER of the touched paths before merge; changes under payments/ need two. "
            "Hotfixes may be merged with a post-merge review within 24 hours."),
          L("What reviewers look for",
            "Correctness, tests, naming, observability and whether the change can be rolled back. Reviewers should answer within one business day.", near=True),
          M("Branch protection now enforced on all repositories",
            "From Monday the main branch of every repo requires an approved {review|PR review} and passing checks; admins can no longer bypass."),
          F("How to write a good pull request description", "A template for PR descriptions: context, what changed, how it was tested, rollout plan.",
            user="daniel_choi", near=True),
          F("Review turnaround by team (dashboard export)", "Median time to first review and to approval per team for the last quarter.", ext="xlsx", near=True),
          F("CODEOWNERS: how required reviewers are chosen",
            "The CODEOWNERS file maps paths to teams; GitHub requests a review from the owning team and blocks the merge until one owner approves."),
          L("코드 리뷰 가이드라인", "모든 PR은 머지 전에 CODEOWNER 한 명 이상의 승인이 필요합니다. 리뷰는 영업일 기준 하루 안에 해주세요."),
      ],
      [
          P("Can I merge with a single approval if the CODEOWNER is on vacation?", [], "question"),
          P("Do config-only changes really need two sign-offs in the payments repo?", ["engineering"], "discussion"),
          P("리뷰어 지정은 어떻게 하나요? 우리 저장소엔 CODEOWNERS 파일이 없어요", [], "question"),
      ],
      [
          Q("plain", "How many approvals do I need before merging a PR?", ["engineering"], "question",
            ["PR approvals before merge", "code review policy", "branch protection required reviews"]),
          Q("synonym", "what's our rule for peer review on pull requests? can I self-merge a hotfix at night?", [], "discussion",
            ["peer review pull requests policy", "hotfix merge without approval", "code review guidelines"]),
          Q("keyword", "codeowners approval required?", [], None,
            ["CODEOWNERS approval", "required reviewers pull request", "code review policy"]),
      ])

topic("postmortem", "eng", "SRE", "Runbooks",
      "postmortem postmortems incident incidents rca retrospective sev1 sev2 outage outages blameless",
      [
          F("Incident postmortem template",
            "Summary, impact, timeline, root cause, what went well, what went wrong and action items with owners.", ext="docx", key="template"),
          L("When is a postmortem required?",
            "SEV1 and SEV2 incidents need a blameless postmortem within five business days; SEV3 at the incident commander's discretion."),
          F("Writing blameless postmortems (training slides)",
            "How to describe what happened without blaming people, how to find contributing factors and how to write action items that get done.", ext="pptx",
            key="slides"),
          L("Root cause analysis (RCA) guideline",
            "Use the five whys and a timeline built from alerts and chat logs. The RCA section of the postmortem links to the tickets for every fix.", key="rca"),
          F("장애 회고 작성 가이드", "장애 발생 후 5영업일 안에 비난 없는(blameless) 회고 문서를 작성합니다. 템플릿은 SRE 사이트에 있습니다.",
            name="Incident-Retrospective-Guide-KR"),
      ],
      [
          P("Is there a standard format for writing up an outage review? First time doing one.", [], "question"),
          P("blameless postmortem 처음 써보는데 예시 있을까요?", [], "question"),
      ],
      [
          Q("keyword", "postmortem template?", [], None,
            ["postmortem template", "incident review document", "blameless postmortem process"]),
          Q("synonym", "We had an outage yesterday. Do we have a template for the incident write-up and root cause analysis?", ["sre"], "help",
            ["incident write-up template", "root cause analysis RCA", "postmortem process"]),
          Q("korean", "장애 회고 문서 언제까지 써야 해요?", [], "question",
            ["장애 회고 작성 기한", "postmortem required SEV2", "incident review process"],
            exclude=["Is there a standard format", "blameless postmortem 처음", "template", "slides", "rca"]),
      ])

topic("jira-perms", "eng", "IT", "IT FAQ",
      "jira atlassian permission permissions project projects board boards epic issues",
      [
          F("Requesting access to a Jira project",
            "Project access is granted by the project admin. Find the admin on the project's summary page or ask in #jira-help; IT only handles licences."),
          L("Jira: I can't see a project or board",
            "Boards show only issues from projects you can browse. Ask the project admin to add you to the {developers|users} role of that project."),
          M("Jira permission schemes simplified",
            "All software projects now share three permission schemes (open, team-only, restricted). Project admins manage roles themselves."),
          F("Jira project admins by department", "A list of Jira project keys with their admins and backup admins.", ext="xlsx"),
          L("Jira 권한 요청 방법", "Jira 프로젝트 권한은 프로젝트 관리자가 부여합니다. 관리자를 모르면 #jira-help 채널에 문의하세요."),
      ],
      [
          P("Can't create issues in the DATA project, who is the admin there?", ["jira"], "help"),
          P("Can contractors see our Atlassian boards? Need to share a sprint board with an agency.", [], "question"),
          P("Jira 프로젝트 권한 요청했는데 누가 승인하나요?", [], "question"),
      ],
      [
          Q("typo", "how do i get acess to a jira projcet?", [], "question",
            ["jira project access", "jira permission request", "jira project admin"]),
          Q("plain", "I need edit permission on the MOBILE board in Jira, who grants that?", ["it"], "help",
            ["jira board permission", "jira project role", "jira project admin list"]),
          Q("keyword", "jira proj admin list?", [], None,
            ["jira project admin list", "jira project permissions", "jira access request"]),
      ])

topic("github-access", "eng", "Engineering", "Engineering Handbook",
      "github org organization ssh enterprise saml repo repos repository repositories",
      [
          F("Joining the Contoso GitHub Enterprise organization",
            "Request access through the IT portal; once approved you get an invitation to the contoso org. Accept it with your work account and enable SSO."),
          L("Adding an SSH key and authorising it for SSO",
            "After adding your SSH key in GitHub, click Configure SSO next to it and authorise the contoso organization, otherwise git clone fails."),
          L("GitHub access request in the IT portal",
            "Choose 'GitHub Enterprise' in the IT portal; your manager approves and the invitation to the {org|organization} arrives within a day. Invitations expire after 7 days."),
          L("'Repository not found' after joining the org",
            "If git says a repository does not exist, you are either not yet in the team that owns it or your SSH key is not SSO-authorised."),
          L("GitHub 조직 가입 방법", "IT 포털에서 GitHub 접근 권한을 요청하면 contoso 조직 초대 메일이 옵니다."),
      ],
      [
          P("Getting a SAML error when cloning from GitHub with my SSH key, what am I missing?", ["engineering"], "help"),
          P("Joined last week and still can't see any of the team's repos on GitHub", [], "help"),
          P("My invitation to the contoso GitHub org expired, how do I get a new one?", [], "help"),
      ],
      [
          Q("plain", "How do I get added to our GitHub org? Just joined the data team.", ["engineering"], "question",
            ["GitHub organization access", "GitHub Enterprise invitation", "new employee GitHub account"],
            exclude=["'Repository not found'"]),
          Q("keyword", "gh org invite not arriving", [], None,
            ["GitHub org invitation", "GitHub Enterprise access request", "GitHub SSO account"],
            exclude=["Getting a SAML error", "Adding an SSH key", "'Repository not found'"]),
          Q("synonym", "Can't clone any of our repositories, it says I'm not a member of the organization", ["engineering"], "help",
            ["GitHub organization membership", "SSH key SSO authorize", "repository access GitHub Enterprise"]),
      ])

topic("secrets", "eng", "Security", "Security FAQ",
      "vault secret secrets credential credentials token tokens apikey hashicorp",
      [
          F("Secrets management with HashiCorp Vault",
            "Services read credentials from Vault at start-up through the Kubernetes auth method. Never put secrets in environment files or the repository."),
          L("Request a new Vault path for your service", "File a security ticket with the service name and team; you get a kv path and a policy for your namespace."),
          F("Rotating API keys and database credentials",
            "How to rotate {API keys|tokens} and database passwords without downtime using dynamic secrets and dual credentials."),
          M("Leaked token found in a public gist - what to do",
            "If you ever commit a secret, revoke it immediately and tell the security team. Deleting the commit is not enough."),
          F("Secret scanning in pre-commit and CI", "Gitleaks runs in pre-commit and in every pipeline; here is how to handle false positives.", user="yuna_jung"),
          L("시크릿 관리 가이드", "API 키나 비밀번호는 반드시 Vault에 저장하세요. 코드 저장소에 커밋하면 안 됩니다."),
      ],
      [
          P("Where should I store the Stripe API key for my new service?", ["security"], "question"),
          P("Is it OK to keep real tokens in .env files as long as they are gitignored?", ["security"], "discussion"),
      ],
      [
          Q("plain", "Where are we supposed to keep API keys and passwords that services use?", ["security"], "question",
            ["secrets management API keys", "HashiCorp Vault service credentials", "store passwords securely"],
            exclude=["Rotating API keys", "Leaked token found", "Secret scanning"]),
          Q("keyword", "vault secret rotation how-to", [], None,
            ["vault secret rotation", "rotate API keys credentials", "secrets management guide"],
            exclude=["Is it OK to keep real tokens", "Where should I store the Stripe", "Request a new Vault path", "Leaked token found", "Secret scanning", "시크릿 관리 가이드"]),
          Q("chatty", "Quick sanity check before I push: we're not supposed to commit the .env with the DB password, right? Where should it live instead?", [], "question",
            ["store database password securely", "secrets management Vault", "do not commit secrets"],
            exclude=["Rotating API keys", "Request a new Vault path"]),
      ])

topic("feature-flags", "eng", "Engineering", "Engineering Handbook",
      "flag flags launchdarkly toggle toggles rollout rollouts killswitch",
      [
          F("Feature flags with LaunchDarkly",
            "How to create a flag, target internal users first and roll out to a percentage of customers. Flags are per environment."),
          L("Request a LaunchDarkly project", "Ask in #launchdarkly with your team name; projects are created within a day."),
          F("Cleaning up stale feature toggles", "Every toggle needs an owner and an expiry date. Toggles older than 90 days show up in the weekly cleanup report.", near=True),
          M("Gradual rollouts and kill switches: new guideline",
            "All risky changes must ship behind a flag so that they can be {turned off|switched off} without a deploy."),
      ],
      [],
      [
          Q("plain", "Do we have a feature flag tool? I want to do a gradual rollout of the new checkout.", [], "question",
            ["feature flag tool", "LaunchDarkly gradual rollout", "feature toggle guideline"]),
          Q("acronym", "LD access for our team?", ["engineering"], "question",
            ["LaunchDarkly access", "LaunchDarkly project request", "feature flags"],
            exclude=["Gradual rollouts and kill switches"]),
      ])

topic("logging", "eng", "Platform", "Runbooks",
      "logs log logging kibana grafana datadog observability tracing traces",
      [
          F("Where to find your service's logs (Datadog)",
            "All container output is shipped to Datadog. Filter by service and env tags; saved views exist for every team."),
          M("Kibana is being retired - logs move to Datadog",
            "The old ELK stack will be shut down on 15 March. Dashboards and saved searches need to be rebuilt in Datadog."),
          F("Searching logs in Datadog: a cheat sheet", "Query syntax, facets for env and service, widening the default 15-minute time range and saving views."),
          L("Datadog access request", "Request Datadog through the IT portal; the account is linked to your team automatically."),
          L("운영 로그 조회 방법", "운영 환경의 서비스 로그는 Datadog에서 service 태그로 검색할 수 있습니다."),
      ],
      [
          P("Since ELK went away I can't find my service's stdout anywhere, help", [], "help"),
          P("Datadog log search only shows the last 15 minutes, how do I look further back?", [], "question"),
          P("Datadog에서 로그 검색 권한이 없다고 나와요", [], "help"),
      ],
      [
          Q("plain", "where can I see the logs of my service in production?", [], "question",
            ["service logs production", "Datadog log search", "logging observability"]),
          Q("chatty", "Kibana gone?? I had bookmarks for everything. Where are the logs now?", ["devops"], "help",
            ["Kibana replacement logs", "Datadog logs migration", "log search tool"]),
          Q("korean", "운영 로그 어디서 봐요?", [], "question",
            ["운영 로그 조회", "production logs Datadog", "log search"]),
      ])

topic("release", "eng", "Mobile", "Engineering Handbook",
      "release releases freeze testflight appstore branchcut hotfix version versions",
      [
          F("Mobile release train schedule 2026",
            "iOS and Android ship every two weeks. Branch cut is Thursday 12:00 KST, store submission the following Tuesday.", ext="xlsx"),
          M("Code freeze before the Seollal release",
            "There will be a code freeze from 10 to 20 February. Only release-blocking fixes are merged into the release branch."),
          F("App Store and Play Store submission checklist", "Screenshots, release notes in four languages, TestFlight sign-off and phased rollout settings.", near=True),
          M("Release 8.4 branch cut on Thursday", "Please land your changes for {8.4|the next version} before the branch cut on Thursday noon."),
          L("Hotfix release process for the mobile apps", "Create a hotfix branch from the release tag, get QA sign-off and submit with expedited review.", near=True),
          L("릴리즈 일정 안내", "모바일 앱은 2주마다 배포됩니다. 브랜치 컷은 목요일 12시입니다."),
      ],
      [
          P("When is the next code freeze for the iOS app?", ["mobile"], "question"),
          P("Is there a calendar with all the app release dates for the year?", ["mobile"], "question"),
      ],
      [
          Q("plain", "When's the next app release branch cut?", ["mobile"], "question",
            ["mobile release schedule", "branch cut release train", "app release calendar"]),
          Q("korean", "앱 릴리즈 일정 어디서 확인하나요?", [], "question",
            ["앱 릴리즈 일정", "mobile release train schedule", "app store submission"]),
          Q("keyword", "code freeze dates", [], None,
            ["code freeze dates", "release schedule", "mobile release train"]),
      ])

topic("staging-env", "eng", "Platform", "Runbooks",
      "staging sandbox preprod environment environments testaccount qa",
      [
          F("Staging environment overview", "Staging mirrors production with anonymised data. URLs, deploy flow and what is shared with other teams."),
          L("Test accounts and test credit cards for staging",
            "Shared test users for every plan (free, premium, enterprise) and the card numbers that the payment sandbox accepts."),
          M("Staging data refresh every Sunday", "Staging databases are refreshed from anonymised production data every Sunday at 03:00 KST; test data you created will be gone.", near=True),
          L("Preview environments per pull request", "Add the 'preview' label to a PR to get a temporary environment with its own URL for three days."),
          L("Staging known issues", "Current known problems on staging and their workarounds. Check here before reporting that staging is down.", near=True),
      ],
      [
          P("Can I get my own environment for a PR instead of sharing staging?", [], "question"),
          P("Need a test user with the enterprise plan on staging, is there a shared one?", ["qa"], "question"),
          P("Payment sandbox card numbers, anyone? The usual 4242 one is declined", [], "question"),
      ],
      [
          Q("plain", "Is there a list of test accounts for the staging environment?", ["qa"], "question",
            ["staging test accounts", "test users staging environment", "payment sandbox test cards"],
            exclude=["Can I get my own environment", "Preview environments per pull request", "Staging environment overview"]),
          Q("synonym", "how do I get a sandbox env to try my branch before merging?", [], "question",
            ["sandbox environment branch", "preview environment pull request", "staging environment"],
            exclude=["Need a test user with the enterprise plan", "Payment sandbox card numbers", "Test accounts and test credit cards"]),
          Q("typo", "stagging test acount with premium plan?", [], "question",
            ["staging test account premium", "test users staging", "staging environment accounts"],
            exclude=["Can I get my own environment", "Preview environments per pull request", "Staging environment overview"]),
      ])

topic("cloud-costs", "eng", "Platform", "FinOps",
      "aws cost costs billing finops spend ec2 savings tagging",
      [
          F("How to see your team's AWS costs",
            "Open Cost Explorer with the team tag filter, or use the FinOps dashboard which splits {spend|costs} by team and service every day."),
          M("Cost allocation tags are now mandatory",
            "Resources without team and service tags will be flagged and, after 30 days, stopped. Tag your resources in Terraform."),
          F("FinOps monthly report - October", "Total cloud spend, top growth by team and the savings from rightsizing and savings plans.", ext="pptx"),
          M("Idle EC2 instances will be stopped on Fridays", "Development instances with low CPU for 7 days are stopped every Friday night to save money.", near=True),
          F("Tagging standard for AWS resources",
            "Every resource carries the tags team, service, env and cost-center. EC2 instances launched without them are reported to the owner's manager."),
          L("Savings plans and reserved instances FAQ", "Who buys commitments, how they are allocated to teams and why your bill may look lower than list price.", near=True),
      ],
      [
          P("Our AWS bill doubled this month and I have no idea why, how do I find out what's causing it?", ["finops"], "help"),
          P("How do I tag my EC2 instances so FinOps stops emailing me?", [], "question"),
      ],
      [
          Q("plain", "How can I see how much our team spends on AWS?", [], "question",
            ["team AWS costs", "AWS cost explorer team tags", "FinOps cloud spend dashboard"],
            exclude=["How do I tag my EC2", "Cost allocation tags are now mandatory", "Tagging standard"]),
          Q("acronym", "finops tagging rules for ec2?", ["devops"], "question",
            ["FinOps tagging", "AWS cost allocation tags", "EC2 cost policy"],
            exclude=["Our AWS bill doubled", "How to see your team", "FinOps monthly report"]),
          Q("korean", "우리 팀 AWS 비용 어디서 확인해요?", [], "question",
            ["팀 AWS 비용", "AWS cost explorer team", "FinOps dashboard"],
            exclude=["How do I tag my EC2", "Cost allocation tags are now mandatory", "Tagging standard"]),
      ])

topic("docker-registry", "eng", "Platform", "Runbooks",
      "registry docker image images harbor imagepullbackoff dockerfile",
      [
          F("Internal container registry (Harbor) guide",
            "Push images to registry.contoso.io/<team>/<service>. Log in with your SSO account; CI uses robot accounts."),
          L("ImagePullBackOff when pulling from registry.contoso.io",
            "Usually the pull secret is missing in the namespace or the image tag does not exist. Check with docker manifest inspect."),
          M("Docker Hub rate limits - use the pull-through mirror",
            "Pull public images through mirror.contoso.io to avoid Docker Hub rate limits in {CI|pipelines}.", near=True),
          L("Registry robot accounts for CI", "How to create a Harbor robot account for your pipeline and store its token in Vault."),
      ],
      [
          P("ImagePullBackOff on staging — is it registry auth or something else?", ["devops"], "help"),
          P("where do we host our docker images? ECR or something internal?", [], "question"),
          P("harbor robot account for a GitHub Actions job — how?", ["devops"], "question"),
      ],
      [
          Q("plain", "Where do we push Docker images? Is there an internal registry?", ["devops"], "question",
            ["internal docker registry", "Harbor container registry push", "container images hosting"],
            exclude=["ImagePullBackOff on staging", "ImagePullBackOff when pulling"]),
          Q("keyword", "ImagePullBackOff harbor", [], None,
            ["ImagePullBackOff", "Harbor registry pull secret", "container registry authentication"],
            exclude=["where do we host our docker images"]),
          Q("korean", "도커 이미지 어디에 푸시해요?", [], "question",
            ["도커 이미지 푸시", "internal container registry", "Harbor registry"],
            exclude=["ImagePullBackOff on staging", "ImagePullBackOff when pulling"]),
      ])

# ==========================================================================
# IT
# ==========================================================================

topic("vpn", "it", "IT", "IT FAQ",
      "vpn globalprotect gateway tunnel tunneling",
      [
          F("VPN setup guide (GlobalProtect) for Windows and macOS",
            "Install GlobalProtect from Company Portal or Self Service, enter the portal address vpn.contoso.com and sign in with your work account."),
          L("VPN client won't connect: troubleshooting",
            "If the {client|GlobalProtect client} is stuck on 'Connecting', check your internet connection, restart the app and make sure your MFA prompt was approved."),
          M("New VPN gateway for Seoul users",
            "Users in Korea are now routed to the Seoul gateway automatically. If you pinned the Tokyo gateway, switch back to 'Best available'."),
          L("GlobalProtect error messages explained",
            "'Portal unreachable' usually means no internet or a captive hotel Wi-Fi login; 'Gateway not found' means an old pinned gateway. Both are fixed by re-entering vpn.contoso.com as the portal."),
          L("VPN 접속 가이드 (재택근무 시)",
            "집에서 사내 시스템에 접속하려면 GlobalProtect VPN을 설치하고 vpn.contoso.com 포털로 로그인하세요."),
          F("GlobalProtect on macOS: allow the system extension",
            "On a new Mac, macOS blocks the GlobalProtect network extension until you allow it under System Settings > Privacy & Security; without it the {VPN|tunnel} never connects.",
            ext="pdf"),
      ],
      [
          P("GlobalProtect stuck on 'connecting' from home since this morning", ["it"], "help"),
          P("재택할 때 사내망 접속 어떻게 해요? 처음이라 잘 모르겠어요", [], "question"),
          P("vpn keeps dropping every 10 minutes when I work from my parents' place in Busan", [], "help"),
      ],
      [
          Q("korean", "VPN 접속이 안 돼요. 재택근무 중인데 설정 가이드 있나요?", ["it"], "help",
            ["VPN 접속 설정 가이드", "GlobalProtect VPN setup", "remote access troubleshooting"]),
          Q("synonym", "GlobalProtect says it can't reach the portal, what should I check?", [], "help",
            ["GlobalProtect portal connection", "VPN troubleshooting", "VPN client connect error"]),
          Q("plain", "How do I set up the VPN on my new Mac?", ["it"], "question",
            ["VPN setup macOS", "GlobalProtect install Mac", "remote access VPN guide"],
            exclude=["vpn keeps dropping"]),
      ])

topic("mfa-sso", "it", "IT", "IT FAQ",
      "mfa 2fa sso authenticator otp entra",
      [
          F("Setting up Microsoft Authenticator for MFA",
            "Install Microsoft Authenticator, go to mysignins.microsoft.com and add the work account with the QR code. Number matching is required."),
          L("Moving MFA to a new phone",
            "Before wiping the old phone, add the new phone under Security info. If the old phone is gone, IT can reset your {MFA|authentication methods} after verifying your identity."),
          L("Lost phone: MFA reset via the IT help desk", "Call the help desk or visit the IT bar on 11F with your ID card; a temporary access pass is issued for one day."),
          F("Two-step verification FAQ", "Why we use two-step verification, which methods are allowed and what to do when you travel without your phone."),
          L("MFA 재등록 방법", "휴대폰을 바꿨다면 보안 정보 페이지에서 새 기기를 등록하세요. 이전 기기가 없으면 IT 헬프데스크에 문의하세요."),
      ],
      [
          P("Got a new iPhone and now the Authenticator codes don't work", ["it"], "help"),
          P("Wiped my old phone before moving Authenticator 🤦 what now?", ["it"], "help"),
          P("인증 앱 없이 로그인하는 방법 있나요? 폰을 잃어버렸어요", [], "help"),
      ],
      [
          Q("plain", "I changed phones and can't sign in anymore because of MFA, help", ["it"], "help",
            ["MFA new phone", "Microsoft Authenticator re-register", "reset multi-factor authentication"]),
          Q("keyword", "2FA new phone", [], None,
            ["2FA new phone", "authenticator app transfer", "MFA reset help desk"]),
          Q("korean", "휴대폰 바꿨는데 인증 앱 다시 등록하려면?", [], "question",
            ["인증 앱 재등록", "Authenticator new phone", "MFA reset"]),
      ])

topic("password-reset", "it", "IT", "IT FAQ",
      "password passwords reset expired expiry lockout sspr",
      [
          F("Self-service password reset (SSPR)",
            "Go to passwordreset.microsoftonline.com, verify with your registered phone or email and choose a new password. Works from home too."),
          L("Account locked out: what to do",
            "After 10 wrong attempts the account is locked for 30 minutes. If it is still {locked|blocked}, use self-service reset or call the help desk."),
          F("Password policy", "Minimum 14 characters, no reuse of the last 5 passwords, expiry every 180 days with reminder emails 14 days before.", ext="pdf", near=True),
          M("Password expiry extended to 180 days", "From this month passwords expire after 180 days instead of 90. You will get reminders two weeks before.", near=True),
          L("비밀번호 재설정 방법", "비밀번호가 만료되었거나 잊어버린 경우 셀프 서비스 재설정 페이지를 이용하세요."),
      ],
      [
          P("Locked out after too many attempts and the help desk is closed, what now?", [], "help"),
          P("비밀번호 만료 알림 메일이 계속 오는데 어디서 바꾸나요?", ["it"], "question"),
          P("SSPR asks to verify a phone number I no longer have", ["it"], "help"),
      ],
      [
          Q("chatty", "My Windows password expired while I was on leave and now I can't log in from home. How do I reset it?", [], "help",
            ["password expired reset", "self-service password reset", "account locked out"]),
          Q("typo", "pasword reset link?", ["it"], None,
            ["password reset", "self-service password reset SSPR", "forgot password"]),
      ])

topic("laptop", "it", "IT", "IT FAQ",
      "laptop laptops macbook thinkpad notebook hardware refresh",
      [
          F("Laptop refresh policy",
            "Laptops are replaced every three years, or earlier if a repair costs more than half of a new device. IT contacts you when you are eligible."),
          L("Request a replacement laptop (broken, lost or stolen)",
            "Open a hardware ticket in the IT portal; for theft attach the police report. A loaner {notebook|laptop} is available the same day."),
          M("MacBook Pro M4 now in the hardware catalog", "Engineers due for a refresh can now choose the 14-inch MacBook Pro M4 or the ThinkPad X1 Carbon."),
          F("Returning your old laptop", "Bring the old device to the IT bar within two weeks of receiving the new one; data is wiped by IT.", near=True),
          L("노트북 교체 신청 방법", "노트북은 3년마다 교체됩니다. 고장 난 경우 IT 포털에서 하드웨어 요청을 등록하세요."),
          F("Hardware catalog 2026", "Standard laptops, monitors and accessories by role, with delivery times.", ext="xlsx", near=True),
      ],
      [
          P("My ThinkPad's hinge just snapped, do I get a new one or only a repair?", ["it"], "help"),
          P("Is the 3-year hardware refresh automatic or do I have to ask?", [], "question"),
          P("노트북 배터리가 부풀었어요 ㅠ 어디 맡기나요?", [], "help"),
      ],
      [
          Q("chatty", "How do I request a laptop replacement? Mine is 4 years old and super slow, builds take forever.", [], "question",
            ["laptop replacement request", "laptop refresh policy", "hardware request IT portal"]),
          Q("typo", "labtop replacment process?", ["it"], None,
            ["laptop replacement process", "hardware refresh", "new laptop request"]),
          Q("korean", "맥북 교체 주기 몇 년인가요?", [], "question",
            ["맥북 교체 주기", "laptop refresh cycle", "hardware replacement policy"],
            exclude=["노트북 배터리가", "My ThinkPad's hinge"]),
      ])

topic("wifi", "it", "IT", "IT FAQ",
      "wifi wireless ssid eduroam hotspot",
      [
          F("Connecting to the Contoso-Corp Wi-Fi", "Laptops managed by IT connect automatically. Phones use Contoso-Corp with your work account (certificate installed by Company Portal).",
            key="corp"),
          F("Guest wireless for visitors", "Visitors use the Contoso-Guest network. The password changes every Monday and is shown at reception and on the lobby screens.",
            key="guest1"),
          M("Seoul office Wi-Fi upgrade this weekend", "New access points are installed on 10F to 14F on Saturday. The {wireless network|Wi-Fi} may drop for a few minutes.", near=True),
          L("Wi-Fi drops in meeting rooms - known issue", "Some rooms on 12F have weak coverage; IT is adding access points. Use the wired dock in the room meanwhile.",
            key="drops"),
          L("사내 와이파이 접속 방법", "업무용 기기는 Contoso-Corp에 자동으로 연결됩니다. 방문객은 Contoso-Guest를 사용하세요.", key="kr"),
          L("Guest Wi-Fi for interview candidates", "Recruiters can request a personal guest code for candidates at reception; codes are valid for one day.", key="guest2"),
      ],
      [
          P("Which Wi-Fi should my phone use in the office?", [], "question"),
          P("What's the visitor network password? I have a candidate coming in 10 minutes", [], "question"),
          P("Contoso-Corp doesn't show up on my Android phone", [], "help"),
      ],
      [
          Q("plain", "how do I connect my phone to the office wifi?", ["it"], "question",
            ["office wifi phone", "Contoso-Corp Wi-Fi connect", "wireless network setup"],
            exclude=["What's the visitor network password", "guest1", "guest2", "drops"]),
          Q("korean", "게스트 와이파이 비번 뭐예요? 외부 손님 오셨어요", [], "question",
            ["게스트 와이파이 비밀번호", "guest Wi-Fi password", "visitor wireless network"],
            exclude=["Contoso-Corp doesn't show up", "Which Wi-Fi should my phone use", "corp", "drops"]),
      ])

topic("printer", "it", "IT", "IT FAQ",
      "printer printers print printing toner papercut scan",
      [
          F("Adding an office printer (PaperCut) on Windows and macOS",
            "Install the PaperCut client from Company Portal; all floors share the Follow-Me queue. Release your job at any printer with your badge."),
          L("Printer jammed or out of toner", "Report it in the facilities app with the printer's number; spare toner is in the copy room on each floor.", near=True),
          M("New multifunction printers on 7F and 9F", "The old printers are replaced on Wednesday. The Follow-Me {queue|print queue} keeps working without changes.", near=True),
          L("Printing from a personal device is not supported", "Only managed laptops can print. For guests, reception prints documents on request."),
          F("프린터 설정 방법", "PaperCut 클라이언트를 설치한 뒤 Follow-Me 대기열로 인쇄하고, 프린터에서 출입카드를 태그해 출력하세요.",
            name="Printer-Setup-KR"),
      ],
      [
          P("New laptop doesn't list any office printers, what do I install?", [], "help"),
          P("프린터 목록에 아무것도 안 떠요", [], "help"),
          P("PaperCut client asks for a server address on first start, what do I enter?", [], "question"),
      ],
      [
          Q("plain", "Can't print from my laptop - how do I add the office printer?", ["it"], "help",
            ["add office printer", "PaperCut printer setup", "printing Follow-Me queue"]),
          Q("korean", "프린터 드라이버 설치 어떻게 해요?", [], "question",
            ["프린터 드라이버 설치", "printer setup PaperCut", "office printing guide"]),
      ])

topic("meeting-rooms", "it", "Facilities", "Facilities FAQ",
      "room rooms booking reserve reservation roomfinder",
      [
          F("Booking meeting rooms in Outlook (Room Finder)",
            "Create a meeting, click Room Finder, choose the building and floor and pick a free room. The room accepts automatically."),
          L("Meeting room list Seoul 10F-14F", "Every room with its capacity and equipment (video bar, whiteboard, phone)."),
          M("No-show bookings are now released automatically",
            "If nobody checks in at the room panel within 15 minutes, the {booking|reservation} is cancelled and the room becomes free.", near=True),
          F("Town Hall room reservation rules", "The 14F Town Hall (80 seats) is booked through Facilities, not Outlook, and needs two weeks' notice.", ext="pdf"),
          L("회의실 예약 방법", "Outlook 일정에서 Room Finder를 열고 층을 선택해 빈 회의실을 예약하세요."),
      ],
      [
          P("Room Finder doesn't show the 13F rooms, am I missing something?", [], "question"),
          P("How do I find a free room with a video bar for a call with the Austin team?", [], "question"),
      ],
      [
          Q("plain", "How do I book a meeting room for 10 people tomorrow?", [], "question",
            ["book meeting room", "Outlook Room Finder", "meeting room capacity list"],
            exclude=["Town Hall room reservation rules"]),
          Q("korean", "회의실 예약은 어디서 하나요?", ["facilities"], "question",
            ["회의실 예약", "meeting room booking Outlook", "room reservation"]),
      ])

topic("chat-etiquette", "it", "Comms", "Announcements",
      "slack etiquette channel channels dm dms mention mentions",
      [
          F("Slack etiquette guide",
            "Prefer public channels over DMs, thread your replies, set your status when away and avoid @channel outside working hours."),
          L("When to use @here and @channel", "@channel notifies everyone and should be used only for urgent, important messages; @here only for people online.",
            key="here"),
          F("Good manners in DMs", "Say what you need in the first message instead of just 'hi', and don't expect answers outside working hours.",
            key="dm"),
          L("메신저 사용 에티켓", "업무 시간 외에는 @channel 사용을 자제하고, 답장은 스레드로 달아주세요."),
      ],
      [
          P("Is it rude to DM the CTO directly with a question?", [], "discussion"),
          P("people using @channel for lunch orders in #seoul-general... is there a rule?", [], "discussion"),
          P("Thread reply vs new message in busy channels — what's the norm here?", [], "discussion"),
      ],
      [
          Q("plain", "Is there an official guideline on Slack etiquette, e.g. when to use @channel?", [], "question",
            ["Slack etiquette guideline", "@channel usage rules", "messaging etiquette"],
            exclude=["Is it rude to DM the CTO", "dm"]),
          Q("chatty", "New here and don't want to be rude - is it ok to DM people I don't know, or should I ask in a public channel?", ["it"], "discussion",
            ["Slack DM etiquette", "public channel vs direct message", "messaging guidelines"],
            exclude=["people using @channel", "here"]),
      ])

topic("software-request", "it", "IT", "IT FAQ",
      "software license licenses licence jetbrains intellij adobe",
      [
          F("Requesting software licenses", "Paid tools are requested in the IT portal under 'Software'. Your manager approves, IT assigns the license within two days."),
          L("JetBrains license request", "IntelliJ IDEA Ultimate, PyCharm and other JetBrains IDEs are available to all engineers; request a seat in the IT portal."),
          F("Approved software catalog", "Tools that are already approved by security, with who pays for them and how to get access.", ext="xlsx"),
          M("Adobe Creative Cloud seats reallocated", "Unused Adobe {licenses|seats} were reclaimed; if you need one again, request it in the IT portal.", near=True),
          L("소프트웨어 라이선스 신청", "유료 소프트웨어는 IT 포털의 소프트웨어 메뉴에서 신청합니다. 팀장 승인 후 이틀 안에 할당됩니다."),
      ],
      [
          P("Can I get an IntelliJ Ultimate seat or is Community all we have?", ["engineering"], "question"),
          P("Tool we want isn't on the approved list — how does the security review work?", [], "question"),
          P("Figma 유료 라이선스 신청은 어떻게 하나요?", [], "question"),
      ],
      [
          Q("plain", "How do I request a license for a paid tool like a JetBrains IDE?", [], "question",
            ["software license request", "JetBrains license", "IT portal software"]),
          Q("korean", "소프트웨어 라이선스 신청 어디서 해요?", ["it"], "question",
            ["소프트웨어 라이선스 신청", "software license request IT portal", "paid software approval"]),
          Q("typo", "intellij ultimat licence?", ["it"], None,
            ["IntelliJ Ultimate license", "JetBrains license request", "software license"]),
      ])

topic("phishing", "it", "Security", "Security FAQ",
      "phishing phish scam scams suspicious",
      [
          F("How to report a phishing email", "Use the Report button in Outlook. The message is sent to the security team and removed from your inbox."),
          L("What happens after you report a suspicious email", "Security analyses the message within four hours and removes similar messages from all mailboxes."),
          F("Recognising CEO fraud and gift card scams", "Urgent requests from an 'executive' for gift cards or wire transfers are a classic scam. Verify by phone."),
          L("Report button missing in Outlook", "The Report add-in is deployed automatically; in the new Outlook it sits under the ... menu."),
          L("피싱 메일 신고 방법", "의심스러운 메일은 Outlook의 신고 버튼으로 보안팀에 신고하세요."),
      ],
      [],
      [
          Q("chatty", "I got a weird email 'from the CEO' asking me to buy gift cards urgently. Pretty sure it's fake, where do I report it?", [], "question",
            ["report phishing email", "CEO fraud gift card scam", "suspicious email security"]),
          Q("keyword", "phishing report button missing outlook", ["security"], None,
            ["phishing report button Outlook", "report suspicious email", "phishing add-in"],
            exclude=["What happens after you report", "Recognising CEO fraud"]),
          Q("korean", "피싱 메일 같은데 어디에 신고해요?", [], "help",
            ["피싱 메일 신고", "report phishing email", "suspicious email report"],
            exclude=["What happens after you report", "Recognising CEO fraud"]),
      ])

topic("security-training", "it", "Security", "Security FAQ",
      "training trainings awareness course courses mandatory compliance",
      [
          F("Annual security awareness training 2026", "All employees must complete the 45-minute course by 30 November. It covers phishing, passwords and data handling."),
          M("Reminder: security awareness course due 30 November", "Our records show you have not finished the mandatory {course|training}. The link is in the learning portal."),
          F("Secure coding training for engineers", "An additional module for engineers on OWASP Top 10, secrets and dependency risks.", ext="pptx", near=True),
          L("Training completion FAQ", "Progress is stored per module; if the course hangs at the end, clear the browser cache and reopen it from the learning portal."),
          L("정보보호 교육 안내", "전 직원은 11월 30일까지 연간 정보보호 교육을 이수해야 합니다."),
      ],
      [
          P("The awareness course is stuck at 95% and I can't finish it", [], "help"),
          P("정보보안 교육 마감이 언제까지예요?", [], "question"),
          P("Is the secure coding module mandatory for backend people too?", ["security"], "question"),
      ],
      [
          Q("plain", "What's the deadline for the mandatory security training?", [], "question",
            ["security training deadline", "mandatory security awareness course", "compliance training"],
            exclude=["The awareness course is stuck", "Is the secure coding module", "Training completion FAQ"]),
          Q("chatty", "Where is the annual security awareness course? The link in the reminder mail has expired and my manager keeps pinging me.", ["security"], "help",
            ["security awareness course link", "learning portal security training", "annual training"],
            exclude=["정보보안 교육 마감", "Is the secure coding module"]),
          Q("tagged", "mandatory training?", ["security"], None,
            ["mandatory security training", "security awareness course", "compliance training deadline"],
            exclude=["The awareness course is stuck"]),
      ])

topic("distribution-lists", "it", "IT", "IT FAQ",
      "distribution dl dls alias aliases mailinglist",
      [
          F("Creating a distribution list", "Request a new DL in the IT portal with a name, owners and members. Owners can manage members themselves in Outlook."),
          F("Distribution list or Microsoft 365 group - which one?", "A DL just forwards mail; a Microsoft 365 group adds a shared inbox, calendar and files."),
          L("Request form: new email alias", "Use this form for team aliases such as data-team@contoso.com."),
          M("Unused distribution lists will be archived", "Lists without mail in 12 months are archived on 1 March. Owners get a warning two weeks before.", near=True),
          L("Managing members of a DL you own", "Owners add or remove members in Outlook; external addresses can be added as contacts if the list allows external senders."),
      ],
      [],
      [
          Q("plain", "How do I create a mailing list for our team?", [], "question",
            ["create distribution list", "team email alias", "mailing list request"],
            exclude=["Managing members of a DL"]),
          Q("plain", "Can I add people outside the company to our team's email list?", ["it"], "question",
            ["distribution list external members", "DL owner manage members", "email list external contacts"],
            exclude=["Creating a distribution list", "Distribution list or Microsoft 365 group", "Request form: new email alias"]),
      ])

topic("onedrive-sharing", "it", "IT", "IT FAQ",
      "onedrive sharepoint sharing share externally external link links",
      [
          F("Sharing files with external partners from OneDrive",
            "Use Share > Specific people and type the external address. The recipient gets a one-time code by email. Links expire after 30 days."),
          L("Why can't I share with a Gmail address?", "Personal email domains are blocked for sharing. Ask the client for a company address or request an exception."),
          L("External sharing for a SharePoint site", "Site owners can request external sharing for a project site; security approves within one day."),
          M("'Anyone' links disabled from 1 November", "Links that work without sign-in are switched off. Use 'Specific people' {links|sharing} instead."),
          F("외부 업체와 파일 공유하기", "OneDrive에서 공유 > 특정 사용자를 선택하고 외부 이메일을 입력하세요. 링크는 30일 후 만료됩니다.",
            name="External-Sharing-KR"),
      ],
      [
          P("Share button is greyed out when I type an external email address", ["it"], "help"),
          P("how do I send a 3 GB file to a customer? too big for mail", [], "question"),
          P("Customer can't open my OneDrive link, it asks them for a code?", [], "help"),
      ],
      [
          Q("plain", "How can I share a OneDrive folder with a client outside Contoso?", ["it"], "question",
            ["OneDrive external sharing", "share folder with external client", "SharePoint guest access"]),
          Q("korean", "외부 업체에 파일 공유하려면 어떻게 해야 해요?", [], "question",
            ["외부 파일 공유", "OneDrive share externally", "external sharing policy"]),
          Q("typo", "shareing onedrive file with extrenal customer", [], None,
            ["share OneDrive file external", "external sharing customer", "OneDrive guest link"]),
      ])

# ==========================================================================
# HR
# ==========================================================================

topic("parental-leave", "hr", "HR", "HR FAQ",
      "parental maternity paternity 육아휴직 출산휴가 childcare",
      [
          F("Parental leave policy (Korea)",
            "Employees in Korea can take up to one year of parental leave per child until the child turns eight; Contoso tops up the government benefit for the first three months.",
            ext="pdf"),
          F("Paternity leave: 20 days paid", "Fathers get 20 working days of paid {paternity leave|leave for a spouse's childbirth}, to be used within 120 days after the birth."),
          L("How to apply for parental leave in Workday", "Submit the request at least 30 days before the start date and attach the birth certificate or expected due date confirmation."),
          M("Government parental leave benefit (육아휴직 급여) - how to claim",
            "The monthly benefit is claimed at the employment center (고용보험) after the first month; HR provides the confirmation of leave."),
          L("Returning to work after parental leave", "A checklist for your first week back: access, equipment, a catch-up with your manager and flexible hours options.", near=True),
          F("출산휴가 및 육아휴직 안내", "출산휴가 90일, 배우자 출산휴가 20일, 육아휴직은 자녀 1명당 최대 1년까지 사용할 수 있습니다.",
            name="Parental-Leave-Guide-KR"),
      ],
      [
          P("Any dads here who took the full year? How did your team handle it?", [], "discussion"),
          P("육아휴직 신청 몇 달 전에 해야 하나요?", ["hr"], "question"),
          P("Baby due in March — what should I tell my manager and when?", [], "question"),
      ],
      [
          Q("plain", "How many weeks of paternity leave do we get in Korea?", ["hr"], "question",
            ["paternity leave Korea", "parental leave policy", "leave for fathers"],
            exclude=["육아휴직 신청 몇 달 전에", "Government parental leave benefit", "How to apply for parental leave"]),
          Q("korean", "육아휴직 신청은 어떻게 하나요?", [], "question",
            ["육아휴직 신청", "parental leave application Workday", "parental leave policy"],
            exclude=["Paternity leave: 20 days"]),
          Q("synonym", "My wife is expecting in spring. What time off can I take as a new dad?", [], "question",
            ["new father time off", "paternity leave", "parental leave benefits"],
            exclude=["Government parental leave benefit", "How to apply for parental leave"]),
      ])

topic("annual-leave", "hr", "HR", "HR FAQ",
      "vacation vacations pto 연차 carryover holiday holidays",
      [
          F("Annual leave policy", "Employees get 15 days of annual leave in the first full year plus one extra day every two years of service, up to 25 days.",
            ext="pdf"),
          L("Carrying over unused vacation days", "Up to five unused days can be carried over to the first quarter of next year; the rest is paid out or expires as required by law."),
          L("How to request time off in Workday", "Open Workday > Time Off, pick the dates and type ({annual|half-day}) and submit; your manager approves."),
          M("Reminder: use your remaining 연차 before 31 December", "As part of the annual leave promotion (연차 촉진) please plan your remaining days and enter them in Workday."),
          F("연차 사용 안내", "입사 1년 미만은 매월 1일의 연차가 발생하며, 1년 이상 근무하면 15일이 부여됩니다.", name="Annual-Leave-KR"),
          L("Half-day leave (반차) rules", "A half day is four hours, morning or afternoon, and counts as 0.5 days of annual leave."),
      ],
      [
          P("Can I take just the afternoon off? How is that counted?", [], "question"),
          P("남은 연차 수당으로 받을 수 있나요?", ["hr"], "question"),
          P("Planning a 3-week trip to Portugal in May — any problem taking that much PTO at once?", [], "discussion"),
      ],
      [
          Q("plain", "Can I carry over unused vacation days to next year?", ["hr"], "question",
            ["vacation carryover", "unused annual leave policy", "PTO rollover"],
            exclude=["Can I take just the afternoon off", "Planning a 3-week trip", "How to request time off", "Half-day leave", "연차 사용 안내"]),
          Q("plain", "How do I book time off?", [], "question",
            ["request time off", "Workday time off request", "annual leave request"],
            exclude=["남은 연차 수당", "Annual leave policy", "Carrying over", "연차 사용 안내", "Reminder: use your remaining"]),
          Q("korean", "입사 1년차인데 연차 며칠인가요?", [], "question",
            ["연차 일수", "annual leave entitlement first year", "vacation days policy"],
            exclude=["Can I take just the afternoon off", "Planning a 3-week trip", "남은 연차 수당", "How to request time off", "Carrying over", "Half-day leave", "Reminder: use your remaining"]),
      ])

topic("sick-leave", "hr", "HR", "HR FAQ",
      "sick sickness illness 병가 doctor",
      [
          F("Sick leave policy", "Up to 60 days of paid sick leave per year; from the fourth consecutive day a doctor's note is required."),
          L("Reporting a sick day in Workday", "Tell your manager in the morning and enter the day as sick leave in Workday when you are back."),
          M("Flu season: stay home if you're ill", "If you have a fever, please work from home or {take a sick day|report sick}. Don't come into the office."),
          L("Doctor's note (진단서) requirements", "A note from any clinic is fine; upload it in Workday under the sick leave request."),
          L("병가 신청 방법", "아픈 날은 아침에 팀장에게 알리고 Workday에 병가로 등록하세요. 4일 이상이면 진단서가 필요합니다."),
      ],
      [
          P("Do I need a doctor's note for two days of flu?", [], "question"),
          P("Caught covid — how many days can I stay home without using vacation?", [], "question"),
      ],
      [
          Q("chatty", "Woke up with a fever and my throat is killing me. How do I report a sick day? Never done it here.", [], "help",
            ["report sick day", "sick leave Workday", "sick leave policy"]),
          Q("korean", "병가 신청 어떻게 해요?", ["hr"], "question",
            ["병가 신청", "sick leave request", "sick leave policy doctor's note"],
            exclude=["Caught covid", "Flu season"]),
          Q("plain", "Do I need a doctor's note if I'm sick for three days?", ["hr"], "question",
            ["doctor's note sick leave", "sick leave policy", "medical certificate"],
            exclude=["Caught covid", "Flu season", "Reporting a sick day"]),
      ])

topic("performance-review", "hr", "HR", "HR FAQ",
      "performance calibration appraisal evaluation selfassessment 평가 인사평가",
      [
          F("Performance review cycle 2026 timeline",
            "Self-assessment 1-15 December, manager review until 10 January, calibration in January, conversations in February.", ext="pptx"),
          F("Writing your self-assessment", "Describe impact, not activity; link to documents and use the three company values as structure.", near=True),
          M("H2 performance reviews open in Workday on 1 December", "Please complete your self-assessment in Workday by 15 December. Managers will {review|read} them afterwards."),
          L("Calibration FAQ", "Why ratings are calibrated across teams, who attends and how the final rating is communicated."),
          L("인사평가 일정 안내", "자기평가는 12월 1일부터 15일까지 Workday에서 작성합니다."),
          F("Peer feedback guidelines", "Give specific, behaviour-based feedback; peers are chosen by the employee and the manager together.", near=True),
      ],
      [
          P("How much does peer feedback actually count towards the final rating?", [], "discussion"),
          P("Missed the self-assessment deadline, can I still submit?", [], "question"),
          P("When do we get our final ratings this cycle?", [], "question"),
      ],
      [
          Q("acronym", "What's the timeline for this year's perf cycle? When is the self-review due?", ["hr"], "question",
            ["performance review timeline", "self-assessment deadline", "perf review cycle"],
            exclude=["How much does peer feedback", "Calibration FAQ"]),
          Q("typo", "perfomance reveiw calibration how does it work", [], "question",
            ["performance review calibration", "rating calibration process", "performance evaluation"],
            exclude=["Missed the self-assessment deadline", "H2 performance reviews open", "인사평가 일정 안내"]),
      ])

topic("payroll", "hr", "HR", "HR FAQ",
      "payroll salary salaries payslip payslips payday 급여 명세서",
      [
          F("Payroll calendar 2026", "Salaries are paid on the 25th; if the 25th is a weekend or public holiday, on the last business day before.", ext="xlsx"),
          L("Accessing your payslip in Workday", "Workday > Pay > Payslips. PDFs are password-protected with your date of birth (YYMMDD)."),
          L("Payroll FAQ: deductions explained", "National pension, health insurance, employment insurance and income tax withholding on your {payslip|pay statement}.", near=True),
          F("Changing the bank account for your salary", "Update it in Workday before the 10th to take effect for this month's payroll.", near=True),
          L("급여명세서 확인 방법", "Workday의 Pay 메뉴에서 급여명세서를 내려받을 수 있습니다. 비밀번호는 생년월일 6자리입니다."),
      ],
      [
          P("Payslip PDF asks for a password, what is it?", [], "help"),
          P("급여일이 주말이면 언제 들어와요?", [], "question"),
          P("My October payslip isn't in Workday yet, is that normal?", [], "question"),
      ],
      [
          Q("plain", "Where can I download my payslip?", ["hr"], "question",
            ["download payslip", "Workday payslip", "salary statement"],
            exclude=["급여일이 주말이면", "Payroll calendar 2026"]),
          Q("plain", "When is payday if the 25th falls on a Sunday?", [], "question",
            ["payday weekend", "payroll calendar", "salary payment date"],
            exclude=["Payslip PDF asks for a password", "My October payslip", "Accessing your payslip", "급여명세서 확인 방법"]),
          Q("korean", "급여명세서 어디서 봐요?", [], "question",
            ["급여명세서 조회", "payslip Workday", "payroll"],
            exclude=["급여일이 주말이면", "Payroll calendar 2026"]),
      ])

topic("year-end-tax", "hr", "HR", "HR FAQ",
      "연말정산 tax taxes deduction deductions hometax 간소화 withholding",
      [
          F("2025 연말정산 안내 (year-end tax settlement guide)",
            "Timeline, required documents and how to submit them in the payroll system. Deadline for submission is 14 February.",
            name="Year-End-Tax-Settlement-Guide-2025", ext="pdf"),
          F("Downloading your documents from Hometax (간소화 서비스)",
            "Log in to Hometax with a certificate or Kakao authentication, open the simplified service and download the PDF for all categories.",
            key="hometax"),
          M("Year-end tax settlement: submit your documents by 14 February", "The {tax settlement|연말정산} form in the payroll system is open. Refunds are paid with the March salary."),
          L("연말정산 FAQ: 신용카드 공제, 부양가족", "신용카드 사용액 공제와 부양가족 등록에 대한 자주 묻는 질문입니다.", key="faq"),
          F("Year-end tax settlement for foreign employees", "Foreign employees can choose the flat 19% rate; explains which deductions then do not apply.", ext="pdf",
            key="foreign"),
          L("연말정산 서류 제출 방법", "간소화 PDF와 추가 서류를 급여 시스템에 업로드하세요."),
      ],
      [
          P("Foreigners: is the flat rate better than the normal calculation for the year-end settlement?", [], "discussion"),
          P("간소화 자료 PDF 어디에 올리나요?", ["hr"], "question"),
      ],
      [
          Q("korean", "연말정산 서류 어디서 받나요?", [], "question",
            ["연말정산 서류", "홈택스 간소화 자료", "year-end tax settlement documents"],
            exclude=["Foreigners: is the flat rate", "faq", "foreign"]),
          Q("plain", "year end tax settlement deadline?", ["hr", "finance"], None,
            ["year-end tax settlement deadline", "연말정산 submission", "tax documents payroll"],
            exclude=["Foreigners: is the flat rate", "hometax", "faq", "foreign"]),
          Q("chatty", "Hi, first year in Korea here 👋 Do foreigners also have to do the 연말정산 thing? What documents do I need?", [], "question",
            ["year-end tax settlement foreigners", "연말정산 외국인", "flat tax rate foreign employees"]),
      ])

topic("health-checkup", "hr", "HR", "HR FAQ",
      "건강검진 검진 checkup checkups screening hospital hospitals",
      [
          F("2026 annual health checkup program", "Every employee gets a comprehensive checkup once a year at a partner hospital; the company pays up to 500,000 KRW."),
          L("Partner hospitals for the health screening", "KMI (Gwanghwamun, Gangnam), Kangbuk Samsung and Severance check-up centers, with booking links."),
          M("Book your 건강검진 by 30 November", "If you haven't done your {checkup|health screening} this year, book it now; slots in December are almost full."),
          L("Checkup day counts as paid time", "The day of your health checkup is paid and does not use annual leave. Enter it as 'Health checkup' in Workday.", near=True),
          L("건강검진 예약 방법", "검진 예약 사이트에서 병원과 날짜를 선택하세요. 회사 지원 금액은 50만원입니다."),
      ],
      [
          P("Anyone done the endoscopy at KMI? With or without sedation?", [], "discussion"),
          P("건강검진 예약 사이트 주소가 뭐였죠?", [], "question"),
          P("Can I do the annual checkup on a Saturday?", [], "question"),
      ],
      [
          Q("plain", "How do I book the annual health check-up?", ["hr"], "question",
            ["annual health checkup booking", "건강검진 예약", "partner hospital screening"],
            exclude=["Anyone done the endoscopy"]),
          Q("korean", "건강검진 병원 어디로 가나요?", [], "question",
            ["건강검진 병원", "health checkup partner hospitals", "annual medical screening"],
            exclude=["Can I do the annual checkup on a Saturday"]),
          Q("synonym", "Where do I sign up for the yearly medical exam the company pays for?", [], "question",
            ["annual medical exam", "health checkup booking", "company health screening"],
            exclude=["Anyone done the endoscopy"]),
      ])

topic("gym", "hr", "People", "Benefits",
      "gym gyms fitness wellness workout 헬스 pilates",
      [
          F("Wellness allowance: 50,000 KRW per month", "Use it for a gym, swimming, yoga or climbing membership. Claim it monthly with the receipt."),
          L("Partner gyms near the Seoul office", "Discounted memberships at three fitness centers within 5 minutes of the office."),
          M("Wellness allowance now also covers pilates and climbing", "From January the monthly {allowance|wellness money} can be used for pilates studios and climbing gyms too."),
          L("Claiming your fitness membership", "Upload the receipt in the benefits app before the 5th of the following month."),
          L("헬스장 지원 안내", "월 5만원까지 헬스장, 수영, 요가 등 운동 비용을 지원합니다."),
      ],
      [
          P("Which gym near Gangnam station do people go to?", [], "question"),
          P("Does the wellness money cover bouldering?", [], "question"),
          P("헬스장 영수증 어디에 올려요?", [], "question"),
      ],
      [
          Q("plain", "Does the company pay for a gym membership?", ["hr"], "question",
            ["gym membership benefit", "wellness allowance", "fitness subsidy"]),
          Q("korean", "헬스장 비용 지원 되나요?", [], "question",
            ["헬스장 지원", "gym membership allowance", "wellness benefit"]),
          Q("tagged", "fitness allowance", ["benefits"], None,
            ["fitness allowance", "wellness allowance claim", "gym membership benefit"],
            exclude=["Which gym near Gangnam", "Partner gyms"]),
      ])

topic("onboarding", "hr", "People", "HR FAQ",
      "onboarding newcomer newcomers buddy orientation",
      [
          F("New hire onboarding checklist", "Accounts, laptop, badge, mandatory trainings and the people to meet in your first 30 days."),
          F("Your first week at Contoso Seoul", "Where to go on day one, how the office works, lunch and who your buddy is.", ext="pptx"),
          L("Onboarding buddy program", "Every newcomer gets a buddy from another team for the first three months."),
          M("Welcome! Orientation on Monday at 09:30 on 11F", "New joiners meet in the 11F lounge for orientation, then pick up laptops at the IT bar."),
          L("신규 입사자 온보딩 가이드", "입사 첫 주에 해야 할 일과 계정, 장비, 교육 안내입니다."),
      ],
      [
          P("First week here! What should I set up first?", [], "question"),
          P("신규 입사자인데 버디가 누군지 어떻게 알아요?", [], "question"),
      ],
      [
          Q("plain", "Just joined - is there an onboarding checklist for new hires?", [], "question",
            ["new hire onboarding checklist", "first week guide", "onboarding buddy"]),
          Q("korean", "신입 온보딩 자료 있나요?", ["hr"], "question",
            ["신규 입사자 온보딩", "new hire onboarding", "orientation guide"]),
      ])

topic("referral", "hr", "People", "HR FAQ",
      "referral referrals refer bonus greenhouse",
      [
          F("Employee referral program", "Refer candidates through Greenhouse. You get a bonus of 2,000,000 KRW when your referral passes probation."),
          L("Referral bonus payout rules", "The bonus is paid with the salary after the new hire's third month; managers and recruiters are not eligible."),
          L("Submitting a referral in Greenhouse", "Use 'Refer a candidate', attach the CV and tell us how you know the person."),
          M("Double referral bonus for backend roles until March", "For backend and SRE positions the {referral bonus|bonus} is doubled until 31 March."),
      ],
      [],
      [
          Q("plain", "How much is the referral bonus if a friend I recommend gets hired?", [], "question",
            ["referral bonus amount", "employee referral program", "recommend candidate bonus"]),
          Q("keyword", "refer friend backend role", ["hr"], None,
            ["refer a candidate", "Greenhouse referral", "referral bonus backend"]),
      ])

topic("conference-budget", "hr", "People", "Benefits",
      "conference conferences summit learning budget ticket tickets",
      [
          F("Learning and conference budget", "Each employee has 1,500,000 KRW per year for conferences, courses and books; managers approve, travel is separate."),
          F("Attending external conferences: approval flow", "Request in Workday Learning at least four weeks before; share notes with the team afterwards."),
          M("Company-sponsored tickets for KubeCon Asia", "We have ten tickets; apply by 10 January with a short note on why you want to go.", near=True),
          L("Learning budget FAQ", "Which costs count (tickets, online courses, books) and how unused {budget|money} expires at the end of the year."),
          L("교육비/컨퍼런스 지원 안내", "연간 150만원까지 컨퍼런스, 강의, 도서 비용을 지원합니다."),
          F("Speaking at conferences", "If your talk is accepted, the company pays travel and the ticket outside your learning budget."),
      ],
      [
          P("Anyone going to AWS Summit Seoul? Does the company pay for the ticket?", [], "question"),
          P("Is there a per-person learning budget or is it per team?", [], "question"),
          P("Got my talk accepted at a conference in Berlin 🎉 who pays for the flight?", [], "question"),
      ],
      [
          Q("plain", "How much conference budget do we get per year, and who approves it?", [], "question",
            ["conference budget per employee", "learning budget approval", "training budget policy"],
            exclude=["Got my talk accepted", "Speaking at conferences"]),
          Q("chatty", "Thinking about going to PyCon Korea this year, can I expense the ticket or does it come out of some budget?", ["hr"], "question",
            ["conference ticket budget", "learning budget", "external conference approval"]),
          Q("korean", "컨퍼런스 참가비 지원 되나요?", [], "question",
            ["컨퍼런스 참가비 지원", "conference budget", "learning budget"]),
      ])

topic("remote-work", "hr", "HR", "HR FAQ",
      "remote wfh 재택 재택근무 hybrid",
      [
          F("Hybrid work policy", "Employees work from the office at least two days a week (Tuesday and one day of their choice). Teams may agree on more.",
            key="hybrid"),
          F("Working from abroad", "Working from another country is allowed for up to 20 days a year with manager and HR approval because of tax and visa rules.",
            key="abroad"),
          M("Log your WFH days in Workday", "Please mark the days you {work from home|work remotely} in Workday so facilities can plan desks."),
          L("Remote work FAQ", "Core hours, being reachable, equipment at home and what to do if the internet at home fails."),
          L("재택근무 제도 안내", "주 2회 이상 사무실 출근이 원칙이며 나머지는 재택근무가 가능합니다.", key="kr"),
      ],
      [
          P("Can I work from Jeju for two weeks in July?", [], "question"),
          P("재택 주 몇 회 가능한가요?", [], "question"),
          P("Is there a rule about being online during core hours when working from home?", [], "question"),
      ],
      [
          Q("acronym", "What's our WFH policy, how many days a week do we need to be in the office?", [], "question",
            ["work from home policy", "hybrid work office days", "remote work guideline"],
            exclude=["Can I work from Jeju", "Log your WFH days", "abroad"]),
          Q("plain", "Can I work remotely from another country for a month?", ["hr"], "question",
            ["work from abroad policy", "remote work another country", "international remote work approval"],
            exclude=["재택 주 몇 회", "Is there a rule about being online", "Remote work FAQ", "Log your WFH days", "hybrid", "kr"]),
          Q("korean", "재택근무 일주일에 며칠까지 가능해요?", [], "question",
            ["재택근무 일수", "hybrid work policy", "work from home days"],
            exclude=["Can I work from Jeju", "Log your WFH days", "abroad"]),
      ])

topic("visa-relocation", "hr", "People", "HR FAQ",
      "visa visas relocation relocating immigration arc e7 외국인등록증",
      [
          F("Relocating to Seoul: visa sponsorship (E-7)", "Contoso sponsors the E-7 visa; HR and our immigration lawyer prepare the documents. Plan 6-8 weeks."),
          L("Getting your Alien Registration Card (ARC)", "Book an appointment at the immigration office within 90 days of arrival; HR provides the employment certificate."),
          M("Immigration lawyer office hours on Thursdays", "Questions about visa renewals or changing your {visa|status}? Book 30 minutes with our lawyer."),
          L("Relocation package", "Flights, 30 days of temporary housing, shipping allowance and a relocation agent for the apartment search."),
          F("Your first 90 days in Korea: checklist",
            "Alien Registration Card (ARC) appointment, bank account, phone plan and national health insurance, with what HR prepares for each step."),
          F("외국인 직원 비자 안내", "E-7 비자 신청, 연장, 가족 비자(F-3) 관련 안내입니다.", name="Visa-Guide-KR"),
          F("Dependent visas (F-3) for family", "Spouses and children can apply for F-3 visas; HR provides the invitation letter.", ext="pdf"),
      ],
      [
          P("ARC appointment at the immigration office next week — any tips?", [], "question"),
          P("How long is the temporary apartment covered when moving from Austin?", [], "question"),
          P("F-3 visa for my husband — does HR help with the paperwork?", [], "question"),
      ],
      [
          Q("chatty", "I'm transferring from Berlin to the Seoul office in spring. Who handles the visa and what does the company cover?", [], "question",
            ["relocation Seoul visa", "E-7 visa sponsorship", "relocation package"]),
          Q("acronym", "E-7 renewal process?", ["hr"], None,
            ["E-7 visa renewal", "immigration lawyer visa", "work visa Korea"],
            exclude=["How long is the temporary apartment", "F-3 visa for my husband", "ARC appointment", "Getting your Alien Registration Card", "Relocation package", "Dependent visas", "Your first 90 days"]),
          Q("korean", "외국인등록증 발급 회사에서 도와주나요?", [], "question",
            ["외국인등록증 발급", "alien registration card ARC", "immigration support HR"],
            exclude=["How long is the temporary apartment", "F-3 visa for my husband", "Immigration lawyer office hours", "외국인 직원 비자 안내", "Relocation package", "Dependent visas", "Relocating to Seoul"]),
      ])

topic("korean-lessons", "hr", "People", "Benefits",
      "korean lessons lesson class classes tutor hangul",
      [
          F("Korean language classes for international staff", "Beginner and intermediate classes twice a week in the office, free for employees and their partners."),
          L("Language learning reimbursement", "Private Korean lessons or apps can be claimed from the learning budget."),
          M("New Korean class levels from March", "We add an intermediate level; take the {placement test|level test} by 20 February."),
          L("Korean class schedule", "Tuesday and Thursday 12:00-13:00 on 11F, lunch provided."),
      ],
      [],
      [
          Q("plain", "Are there Korean classes for foreign employees?", [], "question",
            ["Korean classes employees", "Korean language lessons", "language learning support"]),
          Q("keyword", "korean lesson support", ["hr"], None,
            ["Korean lessons", "language class reimbursement", "learning budget language"]),
      ])

# ==========================================================================
# FINANCE
# ==========================================================================

topic("expense-client-dinner", "finance", "Finance", "Finance FAQ",
      "expense expenses reimbursement reimbursed reimburse concur receipt receipts entertainment 법인카드 접대비",
      [
          F("Expense policy: client entertainment",
            "Meals with clients are reimbursable up to 100,000 KRW per person. List all attendees, their companies and the business purpose.", ext="pdf"),
          L("How to submit an expense report in SAP Concur",
            "Take a photo of the receipt in the Concur app, choose the expense type (e.g. Business meal - external) and submit the report to your manager."),
          M("Reminder: submit expense reports within 30 days", "Expenses older than 30 days need finance director approval. Please {submit|file} your open reports this week."),
          F("Receipts: what counts and what to do with a lost receipt", "Itemised receipts are required; card slips alone are not enough. For a lost receipt fill in the missing-receipt declaration."),
          L("Corporate card (법인카드) vs personal card for client meals",
            "Use your corporate card when you have one; if you paid privately, claim the amount in Concur and it is paid out with the next salary."),
          F("접대비 정산 방법", "고객 식사 비용은 1인당 10만원까지 정산 가능합니다. 참석자와 목적을 기재하고 Concur로 제출하세요.",
            name="Client-Entertainment-Expenses-KR"),
          F("Business meals with customers: approval thresholds", "Above 1,000,000 KRW per event the VP of the department must pre-approve the customer meal."),
      ],
      [
          P("Concur keeps rejecting my receipt photo, says it's unreadable", [], "help"),
          P("법인카드 없이 개인카드로 고객 식사비 냈는데 어떻게 청구하나요?", ["finance"], "question"),
          P("What's the per-person limit for taking customers out?", [], "question"),
      ],
      [
          Q("plain", "How do I get reimbursed for a client dinner?", [], "question",
            ["client dinner reimbursement", "expense report business meal", "entertainment expense policy"]),
          Q("typo", "reimbursment for clinet dinner", ["finance"], None,
            ["reimbursement client dinner", "expense claim business meal", "Concur expense report"]),
          Q("korean", "고객 접대 식사비 정산 어떻게 하나요?", [], "question",
            ["접대비 정산", "client entertainment expense", "business meal reimbursement"]),
      ])

topic("travel-booking", "finance", "Finance", "Travel",
      "travel trip trips flight flights hotel hotels egencia itinerary 출장 perdiem",
      [
          F("Business travel policy", "Economy class for flights under eight hours, hotels up to the city limit, and trips abroad approved by your director.", ext="pdf"),
          L("Booking flights and hotels in Egencia", "All business trips are booked in Egencia so that we know where travellers are and get corporate rates."),
          F("Per diem rates by country", "Daily allowances for meals and incidentals, e.g. Japan 60 USD, Singapore 70 USD, Germany 55 EUR.", ext="xlsx"),
          M("Travel approval now happens in Concur", "Before booking a {trip|business trip} abroad, submit a travel request in Concur; Egencia checks it."),
          L("Travel FAQ: seat upgrades, loyalty programs, changes", "You may keep miles; upgrades are at your own cost; changes go through Egencia's 24h desk.", near=True),
          F("출장 예약 방법", "해외 출장은 Concur에서 출장 승인 후 Egencia로 항공권과 호텔을 예약합니다.", name="Business-Trip-Booking-KR"),
      ],
      [
          P("Anyone used Egencia for a Tokyo trip? The hotel choice looked very limited.", [], "discussion"),
          P("출장 일비 얼마예요?", [], "question"),
          P("Is business class allowed for a 10-hour flight?", [], "question"),
      ],
      [
          Q("plain", "How do I book flights for a business trip to Singapore?", ["finance"], "question",
            ["book business trip flights", "Egencia booking", "business travel policy"],
            exclude=["출장 일비", "Per diem rates by country"]),
          Q("keyword", "per diem japan", [], None,
            ["per diem Japan", "daily allowance business trip", "travel policy per diem"],
            exclude=["Is business class allowed", "Anyone used Egencia", "Booking flights and hotels", "Travel approval now happens", "출장 예약 방법", "Business travel policy"]),
          Q("korean", "해외 출장 항공권 예약 어디서 하나요?", [], "question",
            ["해외 출장 항공권 예약", "Egencia flight booking", "business travel approval"],
            exclude=["출장 일비", "Per diem rates by country"]),
      ])

topic("purchase-order", "finance", "Procurement", "Finance FAQ",
      "purchase purchasing procurement po vendor vendors supplier suppliers invoice invoices",
      [
          F("Procurement policy: when you need a purchase order", "Any purchase above 1,000,000 KRW or any recurring subscription needs a PO before you sign."),
          F("Onboarding a new vendor", "New suppliers register in the SAP Ariba portal with business registration, bank details and a tax invoice sample."),
          L("Purchase request form", "Start here for software, services or hardware that IT does not provide; procurement issues the PO."),
          M("Invoices without a PO number will be returned", "From 1 January accounts payable rejects {invoices|vendor invoices} that do not reference a purchase order."),
          L("구매 요청 절차", "100만원 이상 구매나 정기 구독은 계약 전에 구매 요청(PO)이 필요합니다."),
      ],
      [],
      [
          Q("chatty", "We want to buy a SaaS tool for about 5M KRW a year for the team. Do I need a purchase order or can I just pay with a card?", [], "question",
            ["purchase order SaaS subscription", "procurement policy threshold", "buying software process"],
            exclude=["Onboarding a new vendor", "Invoices without a PO number"]),
          Q("plain", "how do I onboard a new vendor so they can invoice us?", ["finance"], "question",
            ["new vendor onboarding", "supplier registration Ariba", "vendor invoice purchase order"],
            exclude=["Procurement policy", "구매 요청 절차", "Purchase request form"]),
      ])

# ==========================================================================
# FACILITIES / SEOUL OFFICE LIFE
# ==========================================================================

topic("badge-access", "facilities", "Facilities", "Facilities FAQ",
      "badge badges 출입카드 출입증 keycard",
      [
          F("Lost or damaged badge: replacement", "Report a lost badge immediately in the facilities app so it is deactivated; the new one is ready the next business day."),
          L("Forgot your badge? Temporary pass at reception", "Reception on 1F issues a one-day {temporary pass|visitor-style pass} when you show your ID."),
          L("Badge replacement request", "Use this form for lost, damaged or faded badges. A replacement for a lost badge costs 10,000 KRW."),
          L("출입카드 분실 시 처리 방법", "출입카드를 분실하면 즉시 시설팀에 신고하고 재발급을 요청하세요. 당일은 안내데스크에서 임시 출입증을 받으세요."),
          M("Lost badges: please report them right away", "Several lost badges were used by others last month. Report a missing {badge|access card} within one hour."),
      ],
      [
          P("Left my access card at home, how do I get through the gates today?", [], "help"),
          P("출입증 재발급 비용 있나요?", [], "question"),
      ],
      [
          Q("plain", "I lost my badge, how do I get a new one?", ["facilities"], "help",
            ["lost badge replacement", "access card reissue", "facilities badge request"],
            exclude=["Left my access card", "Forgot your badge?"]),
          Q("korean", "출입카드 집에 두고 왔어요 ㅠ 임시 출입증 어디서 받아요?", [], "help",
            ["임시 출입증", "forgot badge temporary pass", "reception visitor pass"],
            exclude=["출입증 재발급 비용", "Lost or damaged badge", "Badge replacement request", "Lost badges: please report"]),
          Q("keyword", "badge replacement cost", [], None,
            ["badge replacement", "lost badge fee", "access card reissue"],
            exclude=["Left my access card", "Forgot your badge?", "Lost badges: please report", "출입카드 분실 시"]),
      ])

topic("shuttle", "facilities", "SeoulOffice", "Office Info",
      "shuttle shuttles bus buses 통근버스 commute commuter",
      [
          F("Commuter shuttle routes and times (Seoul)", "Morning and evening shuttles from Bundang, Suwon, Ilsan and Incheon to the Gangnam office.", ext="pdf"),
          M("Shuttle timetable changes from 1 March", "The Suwon {route|line} leaves 10 minutes earlier and a new evening departure is added at 20:30."),
          L("Shuttle bus stops map", "Stops and pick-up times for each route, with photos of the stops."),
          L("통근버스 노선 안내", "분당, 수원, 일산, 인천 노선을 운영합니다. 좌석 예약은 셔틀 앱에서 하세요."),
          L("Reserving a seat on the shuttle", "Seats are booked in the shuttle app until 22:00 the day before; unused reservations count as no-shows.",
            key="seat"),
      ],
      [
          P("Is there a late bus back to Bundang after 9pm?", [], "question"),
          P("통근버스 판교 정류장 있나요?", [], "question"),
      ],
      [
          Q("plain", "Is there a shuttle bus from Suwon to the office?", [], "question",
            ["shuttle bus Suwon", "commuter shuttle routes", "office shuttle timetable"],
            exclude=["Reserving a seat"]),
          Q("korean", "통근버스 시간표 어디서 보나요?", ["seoul"], "question",
            ["통근버스 시간표", "shuttle bus timetable", "commuter shuttle routes"],
            exclude=["seat"]),
          Q("typo", "shutle bus from bundang time?", [], None,
            ["shuttle bus Bundang", "commuter shuttle timetable", "shuttle routes"],
            exclude=["seat"]),
      ])

topic("cafeteria", "facilities", "SeoulOffice", "Office Info",
      "cafeteria canteen menu meal meals 구내식당 식권 breakfast",
      [
          F("This week's cafeteria menu", "Korean set, western set and salad bar for each day, with allergens.", ext="pdf", key="menu"),
          L("Meal tickets (식권) and paying in the cafeteria", "Lunch is free with your badge; guests need a meal ticket from reception."),
          L("Cafeteria opening hours", "Breakfast 8:00-9:00, lunch 11:30-13:30, dinner 18:00-19:00 on weekdays.", key="hours"),
          L("Vegetarian and halal options", "The salad bar is vegetarian every day and a halal {meal|dish} is available on request one day ahead.", key="veg"),
          L("구내식당 이용 안내", "점심은 출입카드로 무료이며 손님은 안내데스크에서 식권을 받으세요."),
      ],
      [
          P("Anything vegetarian in the canteen besides salad?", [], "question"),
          P("Is breakfast served downstairs or only lunch?", [], "question"),
      ],
      [
          Q("chatty", "New here - how does the cafeteria work? Do I pay or need tickets, and when is it open?", [], "question",
            ["cafeteria opening hours", "meal tickets cafeteria", "office lunch"],
            exclude=["Anything vegetarian", "veg"]),
          Q("korean", "구내식당 식권 어떻게 받아요? 손님이랑 같이 먹으려고요", [], "question",
            ["구내식당 식권", "cafeteria guest meal ticket", "cafeteria rules"],
            exclude=["Anything vegetarian", "Is breakfast served", "menu", "hours", "veg"]),
      ])

topic("parking", "facilities", "Facilities", "Facilities FAQ",
      "parking car cars 주차 garage plate",
      [
          F("Employee parking at the Seoul office", "The building has 40 employee spaces in B3-B4, assigned by lottery every six months. Register your car plate to enter."),
          L("Register your car plate", "Enter your plate number in the facilities app; the barrier opens automatically from the next day."),
          M("Parking lottery for H1 opens on Monday", "Apply in the facilities app by Friday; results are announced the week after. Current {permits|spaces} end on 30 June."),
          L("주차 등록 방법", "시설 앱에서 차량 번호를 등록하세요. 주차 공간은 6개월마다 추첨으로 배정됩니다."),
          L("Monthly parking fee", "Employee parking costs 100,000 KRW per month and is deducted from salary."),
      ],
      [
          P("Garage is full by 9am every single day, how does anyone get a spot?", [], "discussion"),
          P("주차 등록 차량 바꾸려면 어떻게 하나요?", [], "question"),
          P("Parking lottery results out yet?", [], "question"),
      ],
      [
          Q("plain", "Can I park at the office? How do I register my car?", ["facilities"], "question",
            ["office parking registration", "car plate registration", "employee parking lottery"]),
          Q("korean", "회사 주차 신청 어떻게 해요?", [], "question",
            ["주차 신청", "employee parking registration", "parking lottery"]),
      ])

topic("desk-booking", "facilities", "Facilities", "Facilities FAQ",
      "desk desks hotdesk hotdesking seat seats 좌석",
      [
          F("Hot desking: how to book a desk", "Book a desk up to two weeks ahead in the Condeco app and check in by 10:00 or it is released."),
          M("Desk booking required on Mondays and Fridays", "Because of limited space on busy days, please {reserve|book} your desk in the app before coming in."),
          F("Seating neighbourhoods 10F-12F", "Which team sits in which area; you can book any desk in your neighbourhood.", ext="pdf"),
          L("Lockers for people without a fixed desk", "Personal lockers on every floor; request one in the facilities app.", near=True),
          L("좌석 예약 방법", "Condeco 앱에서 최대 2주 전까지 좌석을 예약하고 10시 전에 체크인하세요."),
      ],
      [
          P("Desk booking app shows every desk as taken on Monday, am I doing something wrong?", [], "help"),
          P("좌석 예약 안 하고 출근해도 되나요?", [], "question"),
      ],
      [
          Q("plain", "How do I reserve a desk for tomorrow?", [], "question",
            ["desk booking", "hot desk reservation app", "Condeco desk"]),
          Q("korean", "좌석 예약 앱 이름이 뭐예요?", ["facilities"], "question",
            ["좌석 예약 앱", "desk booking app", "hot desking"],
            exclude=["좌석 예약 안 하고", "Seating neighbourhoods", "Desk booking required"]),
          Q("keyword", "hot desk app?", ["facilities"], None,
            ["hot desk booking app", "desk reservation", "Condeco"],
            exclude=["좌석 예약 안 하고", "Seating neighbourhoods", "Desk booking required"]),
      ])

topic("aircon", "facilities", "Facilities", "Facilities FAQ",
      "temperature hvac aircon heating 에어컨 난방 thermostat",
      [
          F("Reporting temperature problems", "Too hot or too cold? Report it in the facilities app with your floor and zone; the building team adjusts it within an hour.",
            key="report"),
          L("Facilities request: too hot / too cold", "Form for temperature complaints. Please don't adjust the {thermostats|controllers} yourself; they are centrally managed.",
            key="form"),
          M("HVAC switches off at 19:00 on weekdays", "The building's air conditioning and heating run from 7:00 to 19:00. Overtime operation can be requested a day ahead.",
            key="hours"),
          L("냉난방 문의", "사무실이 너무 덥거나 추우면 시설 앱으로 층과 구역을 알려주세요.", key="kr"),
          L("Overtime air conditioning and heating", "Need cooling or heating after 19:00 or on a weekend? Request overtime HVAC in the facilities app by 15:00 the day before.",
            key="overtime"),
      ],
      [
          P("It's freezing on 12F again, is the heating broken?", [], "discussion"),
          P("에어컨 너무 세요 ㅠㅠ 누구한테 말해요?", [], "help"),
          P("Can we get the AC running after 7pm for release night?", [], "question"),
      ],
      [
          Q("chatty", "It's way too cold near the windows on 11F, everyone is wearing jackets. Who do I tell?", [], "help",
            ["office temperature complaint", "facilities request heating", "HVAC too cold"],
            exclude=["Can we get the AC running", "hours", "overtime"]),
          Q("keyword", "aircon off at 7pm?", [], None,
            ["air conditioning hours", "HVAC schedule office", "overtime air conditioning request"],
            exclude=["It's freezing", "에어컨 너무 세요", "report", "form", "kr"]),
      ])

topic("year-end-party", "facilities", "Comms", "Announcements",
      "party 송년회 yearend gala rsvp",
      [
          F("Year-end party 2026: save the date", "Friday 12 December from 18:30 at the Grand Ballroom, COEX. Partners are not invited this year."),
          L("RSVP for the year-end party", "Please confirm by 28 November in the events app so we can plan food and seats."),
          M("Year-end party: venue, dress code and buses home", "Smart casual. Buses to Bundang, Suwon and Ilsan leave at 22:30 after the {party|celebration}."),
          L("송년회 안내", "12월 12일 금요일 저녁 6시 30분, 코엑스 그랜드볼룸에서 송년회가 열립니다. 참석 여부는 11월 28일까지 이벤트 앱에서 알려주세요."),
          F("Year-end party programme and awards", "Programme of the evening: CEO speech, team awards, band, lucky draw.", ext="pptx"),
      ],
      [
          P("송년회 드레스코드 있어요?", [], "question"),
          P("Year-end party — are partners invited this year?", [], "question"),
      ],
      [
          Q("plain", "When and where is the year-end party?", [], "event",
            ["year-end party date venue", "company year-end party", "송년회"],
            exclude=["RSVP for the year-end party", "Year-end party programme"]),
          Q("korean", "송년회 참석 여부 어디서 체크해요?", [], "question",
            ["송년회 참석", "year-end party RSVP", "events app registration"],
            exclude=["Year-end party — are partners", "송년회 드레스코드", "Year-end party programme", "Year-end party: venue", "Year-end party 2026: save the date"]),
          Q("synonym", "Is there a company holiday party this year? When?", [], "event",
            ["company holiday party", "year-end party", "end of year celebration"],
            exclude=["RSVP for the year-end party", "Year-end party programme"]),
      ])

topic("clubs", "facilities", "People", "Benefits",
      "club clubs 동호회 hobby hobbies",
      [
          F("Company clubs (동호회): funding", "Registered clubs with at least five members get 30,000 KRW per member per month for activities."),
          F("Starting a new club", "Find five members, write a short description and register it with the People team; funding starts the next month."),
          M("Club funding requests for H1", "Club leads, please submit your H1 {activity|event} plans and member lists by 31 January."),
      ],
      [
          P("Anyone interested in starting a bouldering club?", [], "discussion"),
          P("동호회 지원금 신청은 어디서 해요?", [], "question"),
          P("동호회 만들려면 최소 몇 명 필요해요?", [], "question"),
      ],
      [
          Q("plain", "How do I start a company club and get funding for it?", [], "question",
            ["start company club", "club funding", "employee clubs"]),
          Q("korean", "동호회 지원금 얼마예요?", ["hr"], "question",
            ["동호회 지원금", "club funding per member", "company clubs"],
            exclude=["동호회 만들려면", "Anyone interested in starting a bouldering"]),
          Q("keyword", "club funding", [], None,
            ["club funding", "company clubs support", "동호회 지원"],
            exclude=["동호회 만들려면", "Anyone interested in starting a bouldering"]),
      ])

# ==========================================================================
# DISTRACTORS: documents relevant to no question.  Most share everyday words
# (or concept words of the fake embedding model) with some topic's questions;
# the comment names the topic they are a near miss for.
# ==========================================================================

DISTRACTORS = [
    # k8s-limits
    F("Cluster of desks on 5F reassigned to the Data team", "The desk cluster next to the 5F kitchen now belongs to the Data team; Design moves to 6F.", site="Facilities"),
    M("Cooling upgrade for the GPU cluster room", "The server room that houses the GPU cluster gets an additional cooling unit on Saturday; the lab is closed all day."),
    F("Contoso Tech Podcast - episode 12 show notes", "This episode: how the payments team scaled, a chat with our new CTO and listener questions.", site="Comms", ext="pdf"),
    L("Book club: 'Evicted' by Matthew Desmond in March", "Our March book is about housing and eviction in American cities. We meet in the 11F lounge.", site="People", lst="Clubs"),
    F("Resource planning for Q3 hiring", "Headcount limits per department and the resource plan for open requisitions.", site="HR", ext="xlsx"),
    M("Memory lane: 10 years of Contoso in photos", "For our anniversary we collected photos from the first office above the bakery until today."),
    # db-backup
    F("Restore deleted files in OneDrive", "Deleted files stay in the OneDrive recycle bin for 93 days. To roll back a whole library to an earlier date use 'Restore your OneDrive'.", site="IT"),
    L("Restore a previous version of a SharePoint page", "Open the page history and choose Restore on the version you want; the current version is kept.", site="IT", lst="IT FAQ"),
    M("Backup presenter needed for the all-hands", "Jisoo is travelling on the 14th. We need a backup presenter for the product update section."),
    F("How often to water office plants", "Most plants need water once a week; cacti once a month. The plant service visits every second Tuesday.", site="Facilities"),
    L("Alumni contacts database", "HR keeps a database of former employees who agreed to stay in touch for rehiring and events.", site="HR", lst="HR FAQ"),
    # cicd
    F("Sales pipeline review Q4", "Deals by stage, expected close dates and pipeline coverage for the APAC region.", site="Sales", ext="xlsx"),
    F("Hiring pipeline dashboard", "Candidates by stage for every open engineering role, updated daily from Greenhouse.", site="HR", ext="xlsx"),
    M("LEGO build night for the kids' charity", "Bring your family to build LEGO sets that we donate to the children's hospital."),
    M("Deployment of the new coffee machines on all floors", "New espresso machines arrive on Monday; the old ones are removed the same day."),
    # oncall
    L("Call for speakers: internal tech talks", "Submit a 20-minute talk for the December tech talk series by 15 November.", site="Engineering", lst="Announcements"),
    M("Artwork rotation in the lobby", "The lobby gallery changes every quarter; this quarter shows photographs by local artists."),
    M("All-hands shifted to Thursday", "Because of the public holiday the all-hands shifts from Wednesday to Thursday, same time."),
    # code-review
    F("Restaurant reviews near the Gangnam office", "Our staff reviews of restaurants within ten minutes' walk, with prices and vegetarian options.", user="minji_kim"),
    F("Design review checklist", "What the UX team checks before a design is approved for development: accessibility, copy, states.", site="Design"),
    # postmortem
    L("Workplace injury incident report", "Report any injury in the office, however small, with this form. Facilities reviews it within one day.", site="Facilities", lst="Facilities FAQ"),
    F("Hackathon retrospective notes", "What went well at the autumn hackathon and what we want to change next time (more food, fewer slides).", site="Engineering"),
    # jira
    L("Permission slip for Family Day activities", "Parents sign this slip for children joining the rooftop activities on Family Day.", site="People", lst="Events"),
    F("Project board for the 10F office move", "Trello board tracking furniture, IT and signage for the move to 10F.", site="Facilities"),
    F("Confluence - Getting Started", "Create a page in your team's space, use templates for meeting notes and link Jira issues with a smart link.", site="IT"),
    # github / secrets / flags / logging
    M("Secret Santa sign-up", "Sign up for Secret Santa by 5 December; gifts up to 30,000 KRW, exchange at the year-end lunch."),
    L("Flag display on national holidays", "Facilities puts up the national flag at the entrance on Liberation Day and other national holidays.", site="Facilities", lst="Office Info"),
    M("Logging off early before Chuseok", "On the Friday before Chuseok everyone may leave at 15:00. Enjoy the holiday!"),
    L("Visitor log book at reception", "All visitors sign the log book at reception and wear a visitor sticker.", site="Facilities", lst="Office Info"),
    F("Trace your family tree: talk by the genealogy club", "Slides from the lunch talk on tracing family history in Korean and German records.", site="People", ext="pptx"),
    # release
    M("Press release: Contoso partners with Hana Bank", "Contoso and Hana Bank announce a partnership on small-business payments, effective next quarter."),
    M("Album release party for the K-pop dance club", "The dance club celebrates their cover video release on Friday in the lounge."),
    M("Q4 budget freeze for Marketing", "Marketing spend is frozen until January except for committed campaigns."),
    # staging / costs / registry
    F("Staging area for deliveries at the loading dock", "Large deliveries are staged in B1 next to the loading dock before they go up.", site="Facilities"),
    F("Budget and cost center codes for marketing campaigns", "Which cost center to use for events, ads and agencies.", site="Marketing", ext="xlsx"),
    L("Registry of company furniture assets", "Every desk, chair and cabinet with its asset tag and floor.", site="Facilities", lst="Assets"),
    F("Image library for marketing slides", "Approved photos and illustrations for presentations, with usage rights.", site="Marketing"),
    F("Docker Desktop - Getting Started", "Install Docker Desktop from Company Portal, enable the WSL2 backend on Windows and run your first container.", site="IT"),
    # vpn
    F("Tunnel closure on Olympic-daero: commute tips", "The riverside tunnel is closed at night for three weeks; leave earlier or take line 9.", site="SeoulOffice"),
    F("Gateway to Korea: welcome pack for visiting customers", "Hotel suggestions, transport from Incheon and a list of restaurants for our customers' visits.", site="Sales", ext="pdf"),
    # mfa / password
    F("Factor analysis of the engagement survey", "Which factors explain engagement scores this year: manager support, growth and workload.", site="People", ext="pptx"),
    F("Mobile phone plan for employees", "Employees with a business need get a company phone plan from SK Telecom; apply through your manager.", site="IT"),
    M("Password for the lounge TV is on the back of the remote", "If the lounge TV asks for a PIN, it's written on the back of the remote."),
    # laptop
    M("Laptop stickers giveaway at the IT bar", "We have new Contoso stickers! Pick some up at the IT bar while stocks last."),
    M("Carpet replacement on 7F this weekend", "The carpet on 7F is replaced on Saturday and Sunday; please clear the floor under your desk."),
    L("Battery recycling bins", "Used batteries go into the red bins next to the elevators on every floor.", site="Facilities", lst="Office Info"),
    # wifi / printer / rooms
    L("Wi-Fi at the Jeju offsite venue", "The resort's wireless network is 'Haevichi-Event'; the password is in your welcome envelope.", site="People", lst="Events"),
    F("3D printer in the maker lab", "The maker lab on B1 has two 3D printers; book a slot and bring your own filament.", site="Engineering"),
    L("Business cards: ordering from the print shop", "Order business cards through the facilities app; delivery takes one week.", site="Facilities", lst="Facilities FAQ"),
    F("Zoom Rooms - Getting Started", "How to start a meeting from the Zoom Rooms controller and share your screen wirelessly.", site="IT"),
    L("Hotel room blocks for the sales kickoff", "Rooms are blocked at the Grand InterContinental for the kickoff; book by 5 January with the group code.", site="Sales", lst="Events"),
    M("Phone booths on 11F are bookable again", "The six phone booths on 11F can again be booked for up to one hour."),
    F("Conference room AV guide", "How to connect your laptop to the screens, use the ceiling microphones and turn on the video bar.", site="IT", ext="pdf"),
    L("Conference call dial-in numbers", "Local dial-in numbers for Korea, Germany and the US for Teams meetings.", site="IT", lst="IT FAQ"),
    # badge
    F("Badge of honour: Q3 award winners", "Congratulations to this quarter's award winners for customer focus and teamwork.", site="Comms", ext="pptx"),
    L("Access to Tableau dashboards", "Request viewer access to the finance dashboards through the data team's form.", site="Data", lst="Data FAQ"),
    M("Weekend access to the office", "The office is open on weekends from 9:00 to 18:00; register your visit in the facilities app beforehand."),
    L("Lost and found at reception", "Found items are kept at 1F reception for one month, then donated.", site="Facilities", lst="Office Info"),
    # shuttle / cafeteria / parking / desks
    F("Bus tour for visiting customers", "A half-day city bus tour we offer to customers visiting Seoul, with booking contacts.", site="Sales"),
    M("Nuri rocket launch watch party", "Watch the launch live on the big screen in the 14F lounge. Snacks provided."),
    M("Blood donation drive in the lobby", "The Korean Red Cross blood donation bus is parked in front of the building on Wednesday, 10:00-16:00."),
    F("Menu bar redesign in the desktop app", "New layout of the menu bar in the desktop client, with screenshots.", site="Design"),
    M("Lunch and learn: Rust in production", "Bring your lunch to 11F on Thursday for a talk on running Rust services in production."),
    F("Parking lot of ideas from the product retro", "Ideas we parked during the retro and may pick up next quarter.", site="Product"),
    L("Visitor parking validation", "Visitors get two hours of free parking; reception validates the ticket.", site="Facilities", lst="Office Info"),
    L("Wellness room on 3F: opening hours and rules", "The wellness room is open 7:00-22:00. Please wipe the mats after use; no street shoes.", site="Facilities", lst="Office Info"),
    # payroll / tax / health
    M("Payment run for vendor invoices", "Accounts payable pays approved vendor invoices twice a month, on the 10th and the 25th."),
    F("Download the Contoso brand fonts and logos", "Fonts, logo files and colour codes for slides and documents.", site="Marketing"),
    F("Salary benchmarking for recruiting offers", "Market salary ranges by level, used by recruiters for offers.", site="HR", ext="xlsx"),
    M("Year-end closing schedule for Finance", "Cut-off dates for the fiscal year-end close: invoices by 20 December, accruals by 5 January."),
    L("Tax invoice (세금계산서) issuance for customers", "How accounts receivable issues electronic tax invoices to customers.", site="Finance", lst="Finance FAQ"),
    F("Health check endpoints for services (/healthz)", "Every service exposes /healthz for liveness and /readyz for readiness probes.", site="Engineering"),
    L("Server health dashboard", "Red/green overview of all production hosts, refreshed every minute.", site="Platform", lst="Runbooks"),
    F("Health insurance for dependants", "How to add your spouse or children to the national health insurance as dependants.", site="HR", ext="pdf"),
    L("Nurse's room (보건실) on 3F", "If you feel unwell at work, rest in the nurse's room on 3F; first-aid kits are at every reception.", site="Facilities", lst="Office Info"),
    # gym / leave / visa
    F("Membership in the Korea Software Industry Association", "Contoso is a member of KOSA; employees can attend their seminars for free.", site="Comms"),
    M("Leaving the building during fire drills", "The fire drill is on Tuesday at 14:00. Leave the building by the stairs and gather in the park."),
    F("Parent company reporting calendar", "Monthly reporting deadlines to the parent company's finance team.", site="Finance", ext="xlsx"),
    F("Visa corporate card: terms and conditions", "Terms of the Visa corporate card issued by Shinhan Card, including liability and the monthly statement.", site="Finance", ext="pdf"),
    F("Annual report 2025", "Contoso's annual report with revenue, customers and outlook.", site="Comms", ext="pdf"),
    L("Public holiday calendar 2026 (Korea)", "All public holidays in Korea in 2026, including substitute holidays.", site="HR", lst="HR FAQ"),
    F("Translation service for Korean documents", "Need a contract or letter translated? Our translation vendor turns around two pages in a day.", site="Legal"),
    M("Kimchi-making class for CSR day", "Join the kimchi-making class and donate the kimchi to local shelters."),
    # training / security / phishing
    L("Training data retention for ML models", "How long the ML team keeps training data and how deletion requests are handled.", site="Data", lst="Data FAQ"),
    M("Security deposit for the rented event equipment", "Please return the speakers by Monday so we get the security deposit back."),
    M("Fishing club trip to Chuncheon", "The fishing club goes to Chuncheon on Saturday. Rods can be borrowed."),
    # travel / perf / onboarding / referral
    F("Travel photo contest winners", "The winning photos of this summer's travel photo contest.", site="Comms", ext="pptx"),
    F("Time-travel debugging talk slides", "Slides from the tech talk on record-and-replay debugging.", site="Engineering", ext="pptx"),
    F("Performance testing with k6", "How to write load tests with k6 and run them against staging.", site="Engineering"),
    L("Database performance tuning checklist", "Indexes, query plans, connection pools and when to ask the DBA team.", site="DBA", lst="Runbooks"),
    F("Customer onboarding flow redesign", "New sign-up and onboarding screens for small-business customers.", site="Design", ext="pptx"),
    L("Referral codes for the partner program", "Partners get a referral code that gives their customers one free month.", site="Sales", lst="Sales FAQ"),
    M("Client onboarding checklist (Sales)", "Kick-off call, contract in the CRM, admin accounts and the first training for a new client."),
    # remote / distribution / sharing / software
    M("Remote control for the 14F projector is missing", "Please return the projector remote to the 14F Town Hall if you borrowed it."),
    F("Remote debugging guide for Android", "Attach the debugger to a device over Wi-Fi and inspect WebViews.", site="Mobile"),
    F("Distribution of year-end gifts", "Gift boxes are handed out on 20 December at reception; remote employees get them by courier.", site="People"),
    L("Mailing address for personal packages", "Personal packages cannot be delivered to the office; please use your home address.", site="Facilities", lst="Office Info"),
    F("Sharing economy: lunch talk slides", "Slides of the guest talk on car sharing and co-living in Seoul.", site="Comms", ext="pptx"),
    L("External speakers policy for events", "External speakers need a signed agreement and may not present confidential material.", site="Legal", lst="Legal FAQ"),
    F("Software engineering career ladder", "Expectations for each engineering level from L3 to L8, with examples of scope and impact.", site="Engineering", ext="pdf"),
    # expense
    M("Team dinner photos - Q3 offsite", "Photos from the team dinner at the offsite are in the shared album. Thanks for a great evening!"),
    L("Dinner options near the office after 9pm", "Restaurants around Gangnam station that are open late, collected by the night-shift support team.", site="SeoulOffice", lst="Office Info"),
    M("Client visit on Thursday: please keep 12F tidy", "Our biggest client visits the 12F demo area on Thursday at 10:00."),
    # clubs / party / lessons
    F("Hiking club: Bukhansan summit photos", "Photos from the hiking club's autumn climb to Baegundae.", site="People"),
    M("Party supplies in the 14F storage room", "Balloons, cups and decorations for team celebrations are in the 14F storage room; return what you don't use."),
    F("Lessons learned from the billing migration", "What went well and badly when we moved billing to the new platform.", site="Engineering"),
    # near misses taken out of topics during the label review (same product or
    # team vocabulary as a topic, but they answer none of its questions)
    F("Split tunneling: which traffic goes through the VPN",
      "Internal systems and the staging network go through the tunnel; Teams, Zoom and general internet traffic do not.", site="IT"),
    M("[SRE] New escalation policy in PagerDuty",
      "Unacknowledged pages now escalate to the secondary after 10 minutes and to the engineering manager after 20."),
    L("On-call handover checklist",
      "Before handing over the pager: open incidents, silenced alerts, ongoing deploys and anything the next person should watch.", site="SRE", lst="Runbooks"),
    M("[SRE] Postmortem review meeting moves to Thursdays",
      "Postmortems of last week's incidents are now reviewed every Thursday at 16:00 KST. Authors should present their own document."),
    M("GitHub seats for contractors",
      "Contractors can be added to the organization as outside collaborators on single repositories. Ask your manager to file the request."),
    F("Creating a new repository: naming and templates",
      "Repo names are kebab-case with a team prefix. Use one of the repository templates so CODEOWNERS and branch protection are set up.", site="Engineering"),
    M("Single sign-on now required for all SaaS apps",
      "From 1 November all SaaS tools in the app catalog can only be used via SSO with Entra ID. Local passwords will stop working."),
    F("Log retention policy", "Application logs are kept for 30 days, audit logs for one year. Longer retention needs a security review.", site="Security", ext="pdf"),
    F("Grafana dashboards for your service", "Every service gets a default dashboard with latency, error rate and saturation.", site="Platform"),
    L("Active clubs list", "Running, climbing, board games, photography, baking and the K-pop dance club, with their Slack channels.", site="People", lst="Benefits"),
    F("Channel naming conventions", "Prefixes: team-, proj-, help-, social-, alert-. Archive channels after a project ends.", user="minji_kim"),
    M("Slack or Microsoft Teams: which to use when",
      "Slack for internal conversations, Microsoft Teams for meetings and chats with customers and partners."),
    F("Base images maintained by Platform", "Hardened base images for Java, Node, Python and Rust, rebuilt weekly with security patches.", site="Platform"),
    # generic "Getting Started" documents of unrelated products
    F("Figma - Getting Started", "Sign in with SSO, join your team's workspace and find the design system library.", site="IT"),
    F("Miro - Getting Started", "Create a board for workshops, use templates and invite colleagues.", site="IT"),
    F("Tableau - Getting Started", "Open the finance workbook, filter by region and subscribe to weekly updates.", site="IT"),
    F("Salesforce - Getting Started", "Log a client call, update an opportunity and see your pipeline.", site="Sales"),
    F("Power BI - Getting Started", "Connect to the data warehouse and publish your first report to a workspace.", site="IT"),
    F("Postman - Getting Started", "Import the API collections of your team and set up environments for staging and production.", site="Engineering"),
    F("Loom - Getting Started", "Record a short video of your screen and share the link in Slack.", site="IT"),
    F("Lucidchart - Getting Started", "Draw architecture diagrams with the AWS shape library and share them with your team.", site="IT"),
]

# ==========================================================================
# UNRELATED POSTS (relevant to no question).  The second block shares
# everyday words with some questions but is about something else.
# ==========================================================================

UNRELATED_POSTS = [
    P("Lunch buddies for Thursday? Trying the new pho place near exit 3", [], "event"),
    P("Found a black umbrella in room 12A, it's at reception now", [], "info"),
    P("Lost: white AirPods case, probably on 11F. Reward = coffee ☕", [], "info"),
    P("Anyone want to split a Costco membership?", [], "discussion"),
    P("Board game night Friday 7pm in the lounge 🎲", ["social"], "event"),
    P("Recommendations for an English-speaking dentist near Gangnam station?", [], "question"),
    P("Who left the amazing cookies in the 11F kitchen? 🙏", [], "discussion"),
    P("Selling my old monitor arm, 10k KRW, DM me", [], "info"),
    P("점심 같이 드실 분? 오늘 12시 로비에서 만나요", [], "event"),
    P("역삼역 근처 맛집 추천 부탁드려요", [], "question"),
    P("Photography walk at Seoul Forest this Saturday, all cameras welcome", ["social"], "event"),
    P("What's everyone reading this month?", [], "discussion"),
    P("Looking for a roommate near Seolleung from January", [], "info"),
    P("Tips for converting a US driver's license to a Korean one?", [], "question"),
    P("Is the Starbucks on 1F open on Sundays?", [], "question"),
    P("Congrats to the payments team on the launch 🎉", [], "discussion"),
    P("Rust study group starting next week, DM me if you want to join", ["engineering"], "event"),
    P("Anyone know a good tailor in Itaewon?", [], "question"),
    P("Cat sitter needed over Chuseok, 4 days, Mapo", [], "question"),
    P("Hiking Bukhansan on Saturday morning, join us!", ["social"], "event"),
    P("Where do you buy a decent rice cooker here?", [], "question"),
    P("The left elevator is out of order again", [], "info"),
    P("Coffee machine on 11F is broken again ☹️", [], "info"),
    P("Thanks everyone for the farewell lunch, I'll miss you all!", [], "discussion"),
    P("Who wants to join a 5-a-side football game on Wednesday?", [], "event"),
    P("Any good Korean BBQ in Seongsu for a birthday?", [], "question"),
    P("오늘 저녁 치맥 하실 분~", [], "event"),
    P("Free pastries in the 12F kitchen, leftover from the customer event", [], "info"),
    P("Recommend a podcast for the commute? Tech or history", [], "question"),
    P("Weekend trip ideas within 2 hours of Seoul?", [], "question"),
    P("Has anyone tried the new salad place in the basement of the next building?", [], "question"),
    P("Bike to work: where do you lock your bike around here?", [], "question"),
    P("Apartment hunting in Seoul is brutal. Any realtor recommendations?", [], "question"),
    P("Reminder: bring your mug, the kitchen ran out of cups", [], "info"),
    P("혹시 사무실 근처 필라테스 아닌 요가원 추천해주실 분?", [], "question"),
    P("Watching the baseball game at Jamsil on Friday, who's in?", ["social"], "event"),
    P("Recommendations for a pediatrician that speaks English?", [], "question"),
    P("Just adopted a puppy 🐶 pictures in thread", [], "discussion"),
    P("What's your favourite keyboard for coding? Thinking of getting a split one", [], "discussion"),
    P("Anyone else hear the fire alarm test at 10? Was that planned?", [], "question"),
    P("Spare ticket for the Seoul Jazz Festival on Saturday", [], "info"),
    P("Looking for volunteers for the beach clean-up in Incheon", ["csr"], "event"),
    P("Which mobile carrier do you use as a foreigner? Mine is so expensive", [], "question"),
    P("Interesting article on how Naver does code search, link in thread", ["engineering"], "discussion"),
    P("Coffee chat with the new CTO — sign up for a 15-min slot", [], "event"),
    P("Best place for 떡볶이 near the office?", [], "question"),
    P("Does anyone have a label maker I could borrow?", [], "question"),
    P("Snow expected tomorrow, be careful on the hill to the office", [], "info"),
    P("Our team's demo day is Friday 4pm on 14F, everyone welcome", [], "event"),
    P("Language exchange: my Korean for your Spanish?", [], "discussion"),
    P("Free standing desk converter, first come first served", [], "info"),
    P("신규 입사하신 분들 환영합니다! 12층 커피 한 잔 하세요", [], "discussion"),
    P("Which noise-cancelling headphones are worth it?", [], "discussion"),
    P("Microwave queue at 12:10 is insane, can we get a second one?", [], "discussion"),
    P("Thanks to whoever fixed the squeaky door on 12F", [], "discussion"),
    P("Kimchi jjigae downstairs today was amazing", [], "discussion"),
    P("RCA doc for last night's SEV2 — who needs to sign off before it's published?", ["sre"], "question"),
    P("vault login keeps failing with 'permission denied' from my namespace", [], "help"),
    P("Shuttle app won't let me reserve a seat for tomorrow morning", [], "help"),
    P("병가 쓰면 월급에서 빠지나요?", [], "question"),
    P("Who's signing up for the band performance at the year-end party?", [], "event"),
    P("When does the 연말정산 refund show up?", [], "question"),
    P("My Actions workflow times out on the integration tests every other run, any tips?", ["devops"], "help"),
    P("How long should I wait for a reviewer before pinging them?", [], "question"),
    P("TestFlight build isn't showing up for the QA testers, did the submission fail?", [], "help"),
    P("릴리즈 브랜치에 긴급 픽스 넣으려면 누구한테 말해야 하나요?", ["mobile"], "question"),
    P("staging broken again? checkout returns 502 for me", [], "help"),
    P("Two-step prompts every single morning, is that normal?", [], "question"),
    P("wifi on 12F is terrible today, calls keep dropping", [], "discussion"),
    P("my print job has been stuck in the queue on 9F for an hour", [], "help"),
    P("Anyone know how to print double-sided by default on the Mac?", [], "question"),
    P("Someone keeps blocking Room 12A every morning without ever showing up", [], "discussion"),
    P("회의실 예약했는데 자동으로 취소됐어요 왜 그런가요?", [], "question"),
    P("Switched banks — how do I update where my salary goes?", [], "question"),
    P("인사평가 자기평가 작성 팁 있나요?", [], "question"),
    P("Are there lockers for those of us who don't have a fixed seat?", [], "question"),
    P("러닝 동호회 있나요? 같이 뛰실 분", [], "question"),
    P("Where do I ask for a brand new repo in the org?", [], "question"),
    P("How long do we keep application logs? Need 3 months for an audit.", ["security"], "question"),
    P("What do people usually put in the weekly handoff note for the next primary on-call?", [], "question"),
    # near misses: share words with questions, different need
    P("Client asked for our SOC 2 report, who can send it?", ["sales"], "question"),
    P("Dinner plans for the team this Friday? Korean BBQ or Chinese?", [], "discussion"),
    P("How do I restore an old iPhone backup on my personal Mac?", [], "question"),
    P("Is there a limit on how many snacks we can take from the pantry? 😅", [], "question"),
    P("Our sales pipeline in Salesforce is loading really slowly today", ["sales"], "help"),
    P("My desk plants keep dying, how often should I water them?", [], "question"),
    P("Book recommendations for a 12-hour flight to Europe?", [], "question"),
    P("Who's got a spare USB-C charger? My phone died", [], "question"),
    P("Best way to review design mockups in Figma with PMs?", ["design"], "discussion"),
    P("Lost my umbrella on the commuter bus this morning", [], "info"),
    P("Great talk on database internals at the meetup yesterday, slides in thread", ["engineering"], "discussion"),
    P("Which VPN app do you use for Netflix when travelling? asking for a friend", [], "discussion"),
    P("Marriage registration at the district office as foreigners — any tips?", [], "question"),
    P("Parking near Jamsil stadium for the baseball game?", [], "question"),
    P("My passport expires soon, which embassy office handles renewals?", [], "question"),
    P("Anyone have a spare ticket for the Coldplay concert?", [], "question"),
    P("Home printer recommendations? Mostly for school worksheets", [], "question"),
    P("Gym bag left in the 3F shower room, is it yours?", [], "info"),
    P("Team photo for the year-end card, 12F at 3pm please", [], "event"),
    P("Tax refund for tourists at the duty free — how does it work?", [], "question"),
    P("Our Jira board is a mess, how do you all organise epics?", ["engineering"], "discussion"),
    P("Small incident on the 2F stairs this morning, someone slipped — be careful", [], "info"),
    P("Kitchen cleaning rotation: who's next this week?", [], "question"),
    P("Review of the new ramen place downstairs: 4/5, get the spicy one", [], "discussion"),
    P("Badminton club meets Wednesday 7pm, beginners welcome", ["social"], "event"),
    P("Anyone going to the Kubernetes meetup at Google for Startups Campus?", [], "event"),
    P("My Mac keeps asking to install an update, is it safe to click?", [], "question"),
    P("Is the office open on 3 October (National Foundation Day)?", [], "question"),
    P("Baby clothes to give away (0-6 months), DM me", [], "info"),
    P("Sick of instant coffee — who wants to chip in for a grinder?", [], "discussion"),
    P("Anyone want to share a taxi to Incheon airport on Friday evening?", [], "question"),
    P("What's the password for the Netflix account on the lounge TV?", [], "question"),
    P("Does anyone know a shop that repairs mechanical keyboards?", [], "question"),
    P("비 오는 날 우산 빌려주는 곳 있나요?", [], "question"),
    P("Secret Santa draw is done, check your DMs 🎁", [], "event"),
    P("Who wants to try the new escape room in Hongdae as a team event?", [], "event"),
]


# ==========================================================================
# generation
# ==========================================================================

ALT = re.compile(r"\{([^{}]*)\}")
STYLES = {"keyword", "chatty", "typo", "synonym", "acronym", "korean", "tagged", "plain"}
CATEGORIES = {"question", "help", "info", "event", "discussion", None}
DOMAINS = ["eng", "it", "hr", "finance", "facilities"]
USERS = ["minji_kim", "jiho_park", "sarah_lee", "daniel_choi", "yuna_jung", "hyunwoo_lee", "anna_schmidt", "seojin_han"]
MAIL_CHARS = string.ascii_letters + string.digits
HANGUL = re.compile(r"[\uac00-\ud7a3]")


def expand(rng, text):
    def pick(m):
        options = m.group(1).split("|")
        assert len(options) > 1, text
        return rng.choice(options)
    return ALT.sub(pick, text)


def slug(title):
    words = re.findall(r"[A-Za-z0-9]+", title)
    assert words, f"title without ASCII words needs name=: {title}"
    return "-".join(words[:9])


class Urls:
    def __init__(self, rng):
        self.rng = rng
        self.seen = set()
        self.list_ids = {}

    def make(self, doc, site, lst):
        rng = self.rng
        if doc["kind"] == "file":
            name = doc["name"] or slug(doc["title"])
            ext = doc["ext"] or rng.choice(["docx", "docx", "docx", "pdf"])
            user = doc["user"]
            if user is None and rng.random() < 0.1:
                user = rng.choice(USERS)
            if user:
                url = f"https://contoso-my.sharepoint.com/personal/{user}_contoso_com/Documents/{name}.{ext}"
            else:
                url = f"https://contoso.sharepoint.com/sites/{site}/Shared%20Documents/{name.replace(' ', '%20')}.{ext}"
        elif doc["kind"] == "list_item":
            taken = self.list_ids.setdefault((site, lst), set())
            n = rng.randint(1, 480)
            while n in taken:
                n = rng.randint(1, 480)
            taken.add(n)
            url = f"https://contoso.sharepoint.com/sites/{site}/Lists/{lst.replace(' ', '')}/DispForm.aspx?ID={n}"
        else:
            item = "AAMkA" + "".join(rng.choice(MAIL_CHARS) for _ in range(40)) + "AAA%3D"
            url = f"https://outlook.office365.com/owa/?ItemID={item}&exvsurl=1&viewmodel=ReadMessageItem"
        assert url not in self.seen, url
        self.seen.add(url)
        return url


def build():
    rng = random.Random(SEED)
    urls = Urls(rng)

    # 1. documents: topic documents, then distractors (rng used in this fixed order)
    docs = []  # dicts with internal fields _topic and _key
    for t in TOPICS:
        keys = set()
        for d in t["docs"]:
            site = d.get("site") or t["site"]
            lst = d.get("lst") or t["lst"]
            title, body = expand(rng, d["title"]), expand(rng, d["body"])
            url = urls.make(d, site, lst)
            docs.append(dict(kind=d["kind"], title=title, url=url, body=body,
                             _topic=None if d["near"] else t["key"], _key=d["key"], _near=t["key"] if d["near"] else None))
            if d["key"]:
                assert d["key"] not in keys
                keys.add(d["key"])
        for q in t["questions"]:
            for x in q["exclude"]:
                hits = [d for d in t["docs"] if not d["near"] and (d["key"] == x or d["title"].startswith(x))]
                hits += [p for p in t["posts"] if p["text"].startswith(x)]
                assert len(hits) == 1, (t["key"], x, len(hits))
    for d in DISTRACTORS:
        site = d.get("site") or "Intranet"
        lst = d.get("lst") or "Announcements"
        title, body = expand(rng, d["title"]), expand(rng, d["body"])
        docs.append(dict(kind=d["kind"], title=title, url=urls.make(d, site, lst), body=body, _topic=None, _key=None, _near=None))

    # 2. posts
    posts = []
    for t in TOPICS:
        for p in t["posts"]:
            posts.append(dict(text=expand(rng, p["text"]), tags=p["tags"], category=p["category"], _topic=t["key"]))
    for p in UNRELATED_POSTS:
        posts.append(dict(text=expand(rng, p["text"]), tags=p["tags"], category=p["category"], _topic=None))

    # 3. shuffle, then number
    rng.shuffle(docs)
    for i, d in enumerate(docs, 1):
        d["id"] = f"d{i:03d}"
    rng.shuffle(posts)
    for i, p in enumerate(posts, 1):
        p["id"] = f"p{i:03d}"

    # 4. questions with labels, shuffled and numbered over the whole set
    questions = []
    for t in TOPICS:
        for q in t["questions"]:
            m365 = sorted(d["id"] for d in docs if d["_topic"] == t["key"] and not excluded(d, q["exclude"]))
            rel_posts = sorted(p["id"] for p in posts if p["_topic"] == t["key"] and not any(p["text"].startswith(x) for x in q["exclude"]))
            used = [x for x in q["exclude"] if any(excluded(d, [x]) for d in docs if d["_topic"] == t["key"])
                    or any(p["text"].startswith(x) for p in posts if p["_topic"] == t["key"])]
            assert used == q["exclude"], (t["key"], q["text"], set(q["exclude"]) - set(used))
            questions.append(dict(topic=t["key"], style=q["style"], text=q["text"], tags=q["tags"], category=q["category"],
                                  m365=m365, posts=rel_posts, agentQueries=q["agentQueries"]))
    rng.shuffle(questions)
    for i, q in enumerate(questions, 1):
        q["id"] = f"q{i:03d}"

    # 5. the split: by topic, stratified by domain so that both halves get
    #    engineering, IT, HR, finance and facilities topics
    #    (a generator of its own with the same seed, so that editing document
    #    texts does not move topics between the halves)
    split_rng = random.Random(SEED)
    order = []
    for dom in DOMAINS:
        keys = sorted(t["key"] for t in TOPICS if t["domain"] == dom)
        split_rng.shuffle(keys)
        order += keys
    start = split_rng.randrange(2)
    halves = {"tuning": [], "heldout": []}
    for i, k in enumerate(order):
        halves["tuning" if (i + start) % 2 == 0 else "heldout"].append(k)
    split = {h: sorted(v) for h, v in halves.items()}

    concepts = [list(t["concept"]) for t in TOPICS]
    return docs, posts, questions, split, concepts


def excluded(doc, exclude):
    """a question narrower than its topic names documents (by key or title prefix) that do not help it
    (and, by text prefix, the topic's posts that do not share its need)"""
    return any(doc["_key"] == x or doc["title"].startswith(x) for x in exclude)


def public_doc(d):
    return {k: d[k] for k in ("id", "kind", "title", "url", "body")}


def public_post(p):
    return {k: p[k] for k in ("id", "text", "tags", "category")}


def public_question(q):
    return {k: q[k] for k in ("id", "topic", "style", "text", "tags", "category", "m365", "posts", "agentQueries")}


def validate(docs, posts, questions, split, concepts):
    assert len(questions) >= 130 and len(docs) >= 320 and len(posts) >= 220, (len(questions), len(docs), len(posts))
    assert sum(d["_topic"] is None for d in docs) >= 80
    assert sum(p["_topic"] is None for p in posts) >= 60
    assert len({d["url"] for d in docs}) == len(docs)
    seen = {}
    for g in concepts:
        for w in g:
            assert w == w.lower() and " " not in w, w
            assert w not in seen, f"concept word {w!r} in two groups"
            seen[w] = g
    for q in questions:
        assert q["style"] in STYLES and q["category"] in CATEGORIES, q
        assert 2 <= len(q["agentQueries"]) <= 3, q
        assert q["m365"], q
    korean = [q for q in questions if HANGUL.search(q["text"])]
    assert len(korean) >= 15, len(korean)
    assert not set(split["tuning"]) & set(split["heldout"])
    assert set(split["tuning"]) | set(split["heldout"]) == {t["key"] for t in TOPICS}
    tagged = sum(bool(q["tags"]) for q in questions)
    assert 0.35 * len(questions) <= tagged <= 0.65 * len(questions), tagged
    for text in ("Our pods keep getting evicted on the cluster, any internal guide on k8s resource limits?",
                 "How often are our databases backed up and how do I restore one?",
                 "How do I get reimbursed for a client dinner?"):
        assert any(q["text"] == text for q in questions), text


def write(docs, posts, questions, split, concepts):
    sizes = {}
    for half in ("tuning", "heldout"):
        topics = set(split[half])
        out = {
            "half": half,
            "seed": SEED,
            "split": split,
            "concepts": concepts,
            "m365": [public_doc(d) for d in docs],
            "posts": [public_post(p) for p in posts],
            "questions": [public_question(q) for q in sorted(questions, key=lambda q: q["id"]) if q["topic"] in topics],
        }
        path = os.path.join(HERE, f"{half}.json")
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(json.dumps(out, ensure_ascii=False, indent=1) + "\n")
        sizes[half] = os.path.getsize(path)
    return sizes


def review(docs, posts, questions, n, seed):
    """Print n questions (chosen with their own generator) with their labelled documents and posts."""
    byid = {d["id"]: d for d in docs}
    pbyid = {p["id"]: p for p in posts}
    for q in random.Random(seed).sample(sorted(questions, key=lambda q: q["id"]), n):
        print(f"== {q['id']} [{q['topic']}/{q['style']}] {q['text']}  tags={q['tags']}")
        for i in q["m365"]:
            print(f"   D {i} {byid[i]['kind']:9} {byid[i]['title']}")
        for i in q["posts"]:
            print(f"   P {i} {pbyid[i]['text']}")
        if not q["posts"]:
            print("   (no similar post)")


def stats(docs, posts, questions, split, sizes):
    print(f"documents {len(docs)} ({sum(d['_topic'] is None for d in docs)} distractors), "
          f"posts {len(posts)} ({sum(p['_topic'] is None for p in posts)} unrelated), questions {len(questions)}")
    for half in ("tuning", "heldout"):
        qs = [q for q in questions if q["topic"] in split[half]]
        print(f"{half}: {len(split[half])} topics, {len(qs)} questions, {sum(bool(q['posts']) for q in qs)} with >=1 similar post, "
              f"{sum(bool(HANGUL.search(q['text'])) for q in qs)} Korean/mixed, {sum(bool(q['tags']) for q in qs)} tagged, "
              f"{sizes[half]} bytes")


def main(argv):
    docs, posts, questions, split, concepts = build()
    validate(docs, posts, questions, split, concepts)
    sizes = write(docs, posts, questions, split, concepts)
    stats(docs, posts, questions, split, sizes)
    if "--review" in argv:
        review(docs, posts, questions, 20, 7)


if __name__ == "__main__":
    main(sys.argv[1:])

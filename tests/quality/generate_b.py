#!/usr/bin/env python3
"""Set B for LinkUp Suggestions: boards of 30, 300 and 3000 posts.

Writes tests/quality/set_b.json. Python 3.11, standard library only.
Every random choice comes from random.Random(20261203); two runs give
byte-identical output. Labels come from generation: every topic document
and topic post carries the needs ("aspects") it answers, every question the
needs it asks about, and a label is an overlap of the two. Nothing under
src/ or tests/it/ was read to write this file.

    python3 tests/quality/generate_b.py            # writes set_b.json
    python3 tests/quality/generate_b.py --review   # also prints counts and 15 labelled questions
"""

import itertools
import json
import random
import re
import sys
import urllib.parse
from collections import Counter
from pathlib import Path

SEED = 20261203
HERE = Path(__file__).resolve().parent
OUT = HERE / "set_b.json"
SET_A = ["tuning.json", "heldout.json", "korean.json"]
BOARDS = (30, 300, 3000)

HANGUL = re.compile(r"[\uac00-\ud7a3\u3131-\u318e]")


def lang_of(text):
    return "ko" if HANGUL.search(text) else "en"


# --------------------------------------------------------------------------
# Data helpers. A document answers the needs in `asp` (space-separated);
# "near" means it is on the topic but answers none of its questions.


def F(title, body, asp, ext="docx", site=None, user=None):
    return dict(kind="file", title=title, body=body, asp=asp.split(), ext=ext, site=site, user=user)


def L(title, body, asp, lst=None, site=None):
    return dict(kind="list_item", title=title, body=body, asp=asp.split(), lst=lst, site=site)


def M(title, body, asp):
    return dict(kind="mail", title=title, body=body, asp=asp.split())


def P(text, needs, style, cat="question", tags=()):
    """A topic post. `style` is kept in the script only (terse/rambling/mixed/plain)."""
    return dict(text=text, needs=needs.split(), style=style, category=cat, tags=list(tags))


def Q(style, text, needs, cat="question", aq=None):
    return dict(style=style, text=text, needs=needs.split(), category=cat, aq=aq)


def T(name, domain, site, lst, tags, concepts, docs, posts, qs, queries):
    return dict(name=name, domain=domain, site=site, lst=lst, tags=tags,
                concepts=concepts.split(), docs=docs, posts=posts, qs=qs, queries=queries)


# --------------------------------------------------------------------------
# The 30 topics. None of them is a topic of set A (tuning/heldout/korean).

TOPICS = [
    T("db-migration", "engineering", "Engineering", "Engineering FAQ", ["backend", "db"],
      "migration migrations flyway liquibase schema ddl alter 마이그레이션 스키마",
      [F("Production schema changes with Flyway",
         "Every production schema change is a Flyway migration script (V<n>__description.sql) in the service repository. "
         "Open a pull request, the DBA group reviews it, and the deploy pipeline applies it. Never run DDL by hand on a production database.",
         "near"),
       L("운영 DB 스키마 변경 요청 절차",
         "운영 DB의 DDL은 직접 실행하지 않습니다. Flyway 스크립트를 PR로 올리면 DBA 리뷰 후 배포 파이프라인에서 적용됩니다. "
         "1천만 행 이상 대형 테이블은 gh-ost로 새벽 2~5시에 DBA가 실행하니 #dba 채널에 미리 일정을 잡아 주세요.",
         "bigtable"),
       F("Online schema change with gh-ost",
         "For tables above 10M rows use gh-ost instead of a plain ALTER TABLE, so writes keep flowing while the shadow table is copied. "
         "Book a slot with the DBA team; runs happen between 02:00 and 05:00 KST and the cut-over is done by a DBA.",
         "bigtable", site="DBA"),
       M("RE: ALTER on the orders table blocked writes for 4 minutes",
         "Summary of yesterday's incident: a new column on orders (230M rows) was added as a plain Flyway migration at 14:00. "
         "Reminder from the DBA team: large tables must go through gh-ost in the night window. Ping #dba to book one.",
         "bigtable"),
       L("Flyway 마이그레이션 실패 시 복구 방법",
         "마이그레이션이 중간에 실패하면 flyway_schema_history에 success=false 행이 남습니다. 원인을 고친 뒤 flyway repair로 실패 행을 지우고 "
         "수정 스크립트를 새 버전 번호로 올리세요. 이미 적용된 스크립트 파일은 절대 수정하지 마세요.",
         "rollback", site="DBA"),
       F("ERD and data dictionary: orders domain",
         "Entity-relationship diagram of the orders, payments and refunds tables with column descriptions and owners.",
         "near", ext="pdf", site="DBA")],
      [P("이번 스프린트에 주문 테이블에 컬럼 하나 추가해야 하는데요, 데이터가 2억 건 정도 돼요. 예전에 누가 그냥 ALTER 돌렸다가 쓰기가 몇 분 멈췄다는 "
         "얘기를 들어서 좀 무섭네요. 팀장님은 DBA한테 물어보라고 하시는데 어느 채널인지도 모르겠고요.. 큰 테이블에 컬럼 추가할 때 락 안 걸리게 하는 방법 있나요?",
         "bigtable", "rambling", "question", ["db"])],
      [Q("terse", "Online ALTER on a 200M-row table?", "bigtable"),
       Q("plain", "How do I add a column to a very large MySQL table without locking it?", "bigtable"),
       Q("mixed", "Flyway migration이 중간에 실패해서 schema_history에 failed로 남았는데 어떻게 복구해요?", "rollback", "help"),
       Q("paraphrase", "수억 건 넘는 표에 필드 하나 늘려야 하는데 서비스 영향 없이 하는 공식 방법이 있을까요?", "bigtable")],
      {"run": ["flyway production schema change", "DDL 운영 반영 절차", "schema migration PR review"],
       "bigtable": ["gh-ost online schema change", "large table alter lock", "대형 테이블 컬럼 추가", "DBA night window"],
       "rollback": ["flyway migration failed repair", "flyway_schema_history failed", "마이그레이션 실패 복구"]}),

    T("package-mirror", "engineering", "Platform", "Platform FAQ", ["infra", "build"],
      "nexus npm pip pypi maven gradle mirror mirrors 미러 넥서스",
      [F("Using the internal package mirror (Nexus) for npm, pip and Maven",
         "Public registries are not reachable directly from the office network or CI. Point npm, pip and Maven at nexus.contoso.io: "
         "set registry in .npmrc, index-url in pip.conf and the mirror in settings.xml. The Platform site has copy-paste snippets.",
         "install"),
       L("pip install이 SSL 에러나 timeout으로 실패할 때",
         "사내망에서는 pypi.org 직접 접속이 막혀 있습니다. pip.conf의 index-url을 사내 Nexus 주소로 바꾸고, SSL 에러가 나면 사내 루트 인증서를 설치하세요.",
         "install"),
       F("Publishing internal libraries to Nexus",
         "Internal packages use the @contoso npm scope or the contoso-internal PyPI repository. CI publishes on a git tag; personal publishing tokens are not issued.",
         "near"),
       M("[Platform] New package versions are held for 72 hours",
         "From 1 November the Nexus firewall holds versions published less than 72 hours ago. If you need a brand-new version sooner, "
         "or a package is blocked, open a Platform ticket with the package name, version and reason.",
         "newpkg"),
       L("외부 라이브러리 차단 해제(예외) 요청",
         "Nexus 방화벽에서 차단되었거나 아직 보류 중인 버전은 Platform 티켓으로 예외를 요청합니다. 라이선스 검토가 필요하면 1~2일 걸립니다.",
         "newpkg")],
      [P("npm i hangs forever on office wifi", "install", "terse", "help", ["build"])],
      [Q("mixed", "회사에서 pip install 하면 계속 timeout 나요 ㅠ proxy 설정 따로 해야 돼요?", "install", "help"),
       Q("paraphrase", "Node dependencies won't download inside the building. Is there a company-side copy of the public repo we're meant to point at?", "install"),
       Q("rambling", "We're upgrading our React app to the Next.js release that came out yesterday, and design is waiting on it for Friday's demo. "
         "CI was fine last week, but now the install step says that version can't be found, even though I can see it on npmjs.com from my phone. "
         "Is something filtering brand-new versions?", "newpkg", "help"),
       Q("plain", "사내망에서 npm 패키지 받을 때 쓰는 미러 주소가 따로 있나요?", "install")],
      {"install": ["nexus npm registry npmrc", "pip.conf index-url nexus", "사내 패키지 미러 설정"],
       "newpkg": ["nexus firewall new version blocked", "package quarantine 72 hours", "라이브러리 차단 해제 요청"]}),

    T("gpu-quota", "engineering", "MLPlatform", "ML Platform FAQ", ["ml"],
      "gpu gpus a100 h100 slurm squeue sbatch",
      [F("ML training cluster: requesting GPU quota",
         "Submit the GPU quota form on the ML Platform site with your project code, expected GPU-hours and model size. "
         "The default is 8 A100 GPUs per team; extra quota is approved within two business days.",
         "near"),
       L("GPU 쿼터 신청 및 한도 FAQ",
         "팀별 기본 한도는 A100 8장입니다. 팀 한도를 다 쓰면 새 잡은 QOSMaxGRESPerUser 사유로 대기합니다. squeue로 팀 사용량을 확인하고, 추가 쿼터는 ML플랫폼팀 승인을 받으세요.",
         "queue"),
       F("Slurm job priority and fair-share on the GPU cluster",
         "A job pending with reason Priority is waiting for fair-share; Resources means no free GPUs; QOSMaxGRESPerUser means your team hit its limit. "
         "Jobs under two hours should use the short partition, which is scheduled first.",
         "queue"),
       M("RE: 학습 잡이 PENDING 상태에서 안 넘어가요",
         "squeue에서 Reason이 Resources면 빈 GPU가 없는 상태이고 Priority면 fair-share 순서를 기다리는 중입니다. 주말 대형 학습 예약 기간에는 short 파티션을 이용해 주세요.",
         "queue"),
       F("ML Platform roadmap 2026 (draft)",
         "Planned work for next year: H200 nodes, a managed notebook service and per-project cost reports.",
         "near", ext="pptx")],
      [P("slurm 잡 제출했는데 몇 시간째 PD 상태임.. reason에 Priority 라고 뜨는데 이거 뭔가요?", "queue", "mixed", "help", ["ml"])],
      [Q("plain", "My training job has been waiting in the queue since this morning. How does scheduling priority work on the GPU cluster?", "queue"),
       Q("paraphrase", "Why would a batch submission wait for hours when the accelerators look idle?", "queue"),
       Q("terse", "GPU 잡 몇 시간째 대기중", "queue", "help"),
       Q("rambling", "이번 주에 논문 마감이라 실험을 몰아서 돌리고 있는데요, 어제까지는 잘 돌던 학습이 오늘은 제출하자마자 대기열에 그대로 멈춰 있네요. "
         "옆자리 분은 자기 건 바로 돈다고 하고요. 팀 한도를 다 쓴 건지 제가 뭘 잘못 넣은 건지 어떻게 확인하나요?", "queue", "help")],
      {"queue": ["slurm job pending priority", "squeue reason Resources QOSMaxGRESPerUser", "GPU 클러스터 잡 대기", "fair-share short partition"]}),

    T("airflow-dag", "engineering", "DataPlatform", "Data Platform FAQ", ["data"],
      "airflow dag dags dagrun backfill 에어플로우",
      [F("Airflow operations guide: clearing and re-running tasks",
         "To re-run a failed task, open the DAG run, select the task and use Clear. Tick Downstream if later tasks must run again. "
         "Tasks are idempotent only if they write with overwrite or merge; check before clearing a load task.",
         "rerun"),
       M("[Data Platform] Airflow 2.9 upgrade: Clear no longer includes downstream by default",
         "After Saturday's upgrade, clearing a task clears only that task. Tick Downstream explicitly when you want the rest of the run to repeat.",
         "rerun"),
       L("Airflow 과거 날짜 backfill 실행 가이드",
         "UI에서 날짜를 하나씩 돌리지 말고 배치 워커에서 airflow dags backfill 명령을 사용하세요. 30일 이상은 데이터플랫폼팀 승인이 필요합니다.",
         "near"),
       F("DAG 실패 알림(Slack) 설정 방법",
         "default_args에 on_failure_callback으로 공용 slack_alert 함수를 넣으면 #data-alerts 채널로 실패 알림이 갑니다. 팀 채널로 받으려면 channel 인자를 바꾸세요.",
         "notify"),
       L("Failure callbacks and SLA misses",
         "How to send DAG failures and SLA misses to Slack or email with the shared callback in contoso_airflow.utils.",
         "notify")],
      [P("Our nightly revenue DAG failed at 3am because the upstream S3 file was late. The file is there now. I've been poking around the Airflow UI for "
         "twenty minutes and I'm scared of rerunning the whole thing and double-loading the table. What's the safe way to just rerun the failed task?",
         "rerun", "rambling", "help", ["data"])],
      [Q("terse", "airflow 실패 task 재실행", "rerun"),
       Q("paraphrase", "새벽 집계 작업이 중간에 죽었는데 실패한 단계만 다시 돌리려면 어떻게 하죠?", "rerun", "help"),
       Q("mixed", "어제 DAG run 하나 failed 떴는데 clear 누르면 downstream도 같이 다시 돌아요?", "rerun"),
       Q("plain", "How do I get a Slack message when one of my Airflow DAGs fails?", "notify")],
      {"rerun": ["airflow clear failed task", "rerun task downstream", "airflow 태스크 재실행"],
       "notify": ["airflow on_failure_callback slack", "DAG failure alert", "에어플로우 실패 알림"]}),

    T("sentry-access", "engineering", "Engineering", "Engineering FAQ", ["frontend", "mobile"],
      "sentry sourcemap sourcemaps stacktrace minified 센트리",
      [L("Sentry access for engineers",
         "Sentry uses SSO. Your team lead adds you to the team in Sentry; the account is created on first login.",
         "near"),
       F("Uploading source maps to Sentry from CI",
         "Run sentry-cli sourcemaps upload in the build job after bundling, with the same release name that the SDK reports. "
         "Without source maps, JavaScript stack traces show minified bundle names and line 1.",
         "sourcemap"),
       M("RE: Stack traces in Sentry show minified code",
         "The web build changed the release name to the git SHA, but the SDK still reports the package version, so the uploaded maps are never matched. "
         "Set SENTRY_RELEASE in both places.",
         "sourcemap"),
       L("센트리 스택트레이스 원본 코드로 보기",
         "배포 파이프라인에서 소스맵을 업로드하고 SDK의 release 값을 업로드할 때와 동일하게 맞추면 원본 파일명과 줄 번호로 표시됩니다.",
         "sourcemap"),
       F("Sentry 알림 메일 줄이기",
         "개인 설정에서 프로젝트별 이메일 알림을 끄고 팀 알림은 Slack 채널로 받는 방법입니다.",
         "near")],
      [P("센트리에서 에러 스택이 전부 압축된 코드로 나와서 어디서 터졌는지 못 찾겠어요. 원래 코드로 보는 방법 있나요?", "sourcemap", "plain", "help", ["frontend"])],
      [Q("paraphrase", "Our error tracker shows JS exceptions as a.b.c at line 1 col 48213. How do I get readable frames?", "sourcemap", "help"),
       Q("terse", "센트리 스택트레이스 난독화된 채로 보임", "sourcemap"),
       Q("mixed", "Sentry에 sourcemap 올렸는데도 여전히 minified로 보여요. release 이름 맞춰야 하나요?", "sourcemap", "help"),
       Q("rambling", "I joined the web team last week and got thrown straight onto a checkout bug. Sentry shows the error fine, but every frame points into "
         "main.4f9a2c.js at line 1, and my buddy says it used to show real file names before the build change last month. Is there a step in CI we're missing?",
         "sourcemap", "help")],
      {"sourcemap": ["sentry source maps upload", "sentry minified stack trace release", "센트리 소스맵"]}),

    T("test-devices", "engineering", "QA", "QA FAQ", ["qa", "mobile"],
      "devicelab testphone testphones 테스트폰 단말",
      [F("Device lab: borrowing test devices",
         "Phones and tablets for testing are lent by the QA device lab on 8F. Check availability in the inventory sheet, then book the device in the lab's "
         "booking list; the loan period is two weeks and can be extended once.",
         "borrow"),
       L("테스트 단말 대여·반납 규칙",
         "QA 디바이스랩(8층)에서 테스트폰을 대여합니다. 재고 시트에서 모델과 OS 버전을 확인하고 예약 목록에 등록한 뒤 수령하세요. 기본 2주, 1회 연장 가능합니다.",
         "borrow inventory"),
       F("Device lab inventory (live)",
         "Every test phone and tablet with model, OS version, screen size and who currently has it.",
         "inventory borrow", ext="xlsx"),
       M("[QA] 테스트폰 장기 미반납 건 반납 요청",
         "2주가 지난 대여 단말 목록입니다. 해당되시는 분은 이번 주 금요일까지 8층 디바이스랩에 반납해 주세요.",
         "near")],
      [],
      [Q("plain", "How do I borrow a test phone for QA, like an older Galaxy?", "borrow"),
       Q("terse", "테스트폰 대여", "borrow"),
       Q("mixed", "device lab에 iOS 16 단말 남은 거 있나요? 재고 어디서 봐요?", "inventory")],
      {"borrow": ["device lab test phone loan", "테스트폰 대여", "QA device booking"],
       "inventory": ["device lab inventory", "테스트 단말 재고", "test device OS version list"]}),

    T("git-lfs", "engineering", "Engineering", "Engineering FAQ", ["git"],
      "lfs gitattributes monorepo binaries",
      [F("Large files in Git: when and how to use Git LFS",
         "GitHub rejects files over 100 MB. Track large binaries with git lfs track and commit .gitattributes first. If a large file is already in a commit, "
         "rewrite that commit with git lfs migrate import before pushing.",
         "lfs"),
       L("GitHub Enterprise LFS 용량 및 사용 규칙",
         "100MB가 넘는 파일은 Git LFS로 관리합니다. 조직 LFS 용량은 팀별 50GB이며 모델 가중치처럼 자주 바뀌는 대용량 파일은 S3 모델 버킷을 권장합니다.",
         "lfs models"),
       M("RE: push rejected: file exceeds GitHub's 100 MB limit",
         "You need to remove the file from the unpushed commit (git reset --soft, or git lfs migrate import --include) and push again. Plain git rm in a new commit is not enough.",
         "lfs"),
       F("Faster clones: shallow and partial clone for the monorepo",
         "CI agents should use --filter=blob:none and a depth of 50. Full clones of the monorepo take over 20 minutes.",
         "near"),
       L("ML 모델 파일 보관: S3 모델 버킷 사용 안내",
         "학습된 모델 가중치는 Git 저장소가 아니라 s3://contoso-models 버킷에 버전별로 올리고 저장소에는 경로만 남깁니다.",
         "models", site="MLPlatform")],
      [P("Git push rejected: this file exceeds the 100 MB limit. It's a trained model we need next to the code. What's the recommended way here?",
         "lfs models", "plain", "help", ["git"])],
      [Q("mixed", "repo에 100MB 넘는 파일이 push가 안 되는데 LFS 써야 하나요?", "lfs"),
       Q("paraphrase", "모델 가중치처럼 용량 큰 산출물은 코드 저장소에 어떻게 보관하는 게 맞나요?", "models lfs"),
       Q("terse", "git lfs setup?", "lfs"),
       Q("rambling", "We trained a new ranking model over the weekend and the weights file is 380 MB. I committed it like everything else, but the remote refused "
         "my push and now my local branch is stuck one commit ahead with that file in it. How should big binaries go into a repo here, and how do I fix my branch?",
         "lfs models", "help")],
      {"lfs": ["git lfs track large file", "push rejected 100 MB", "대용량 파일 LFS", "git lfs migrate import"],
       "models": ["model weights storage s3 bucket", "모델 파일 보관", "large model file repository"]}),

    T("cdn-purge", "engineering", "Web", "Web Platform FAQ", ["frontend", "infra"],
      "cdn cloudfront invalidation invalidate purge 무효화",
      [F("CDN cache invalidation (CloudFront)",
         "Run the invalidate-cdn job in the web pipeline with the paths to refresh, for example /static/css/*. Engineers in the web-deployers group can run it; "
         "it takes about five minutes to reach every edge location.",
         "purge"),
       L("CDN 캐시 무효화 요청 방법",
         "배포 후에도 이전 파일이 보이면 파이프라인의 invalidate-cdn 잡을 실행하세요. 권한이 없으면 #web-platform 채널에 경로와 함께 요청하면 됩니다.",
         "purge"),
       F("Static asset versioning: hashed file names",
         "Bundles and images get a content hash in the file name, so new versions never need an invalidation. Only index.html is served with no-cache.",
         "near"),
       M("RE: CloudFront invalidation costs went up 10x in October",
         "Please stop invalidating /* on every deploy. Invalidate only the paths you changed; the first 1,000 paths a month are free.",
         "purge")],
      [P("CDN 캐시 purge 요청 어디로?", "purge", "terse", "question", ["frontend"])],
      [Q("rambling", "We shipped the new pricing page an hour ago and marketing keeps telling me they still see the old banner, even in incognito. "
         "I checked the S3 bucket and the new image is definitely there with the same file name. Do I need to clear something on the CloudFront side, and can I do that myself?",
         "purge", "help"),
       Q("plain", "How do I invalidate the CloudFront cache after a deploy?", "purge"),
       Q("paraphrase", "릴리스 뒤에도 고객 화면에 어제 스타일이 그대로예요. 엣지 서버가 새 파일을 받아가게 하려면?", "purge", "help"),
       Q("plain", "배포하고 나서도 예전 이미지가 계속 보이는데 CDN에 남아 있는 걸 지우려면 어떻게 해야 하나요?", "purge", "help")],
      {"purge": ["cloudfront invalidation", "cdn purge cache paths", "CDN 캐시 무효화", "invalidate-cdn job"]}),

    T("dependency-vulns", "engineering", "Security", "Security FAQ", ["security"],
      "snyk dependabot cve vulnerability vulnerabilities 취약점",
      [F("Vulnerability remediation SLA",
         "Fix deadlines for findings in your dependencies: critical 7 days, high 30 days, medium 90 days. The clock starts when Snyk opens the issue.",
         "sla", ext="pdf"),
       L("취약점 조치 기한 및 예외(위험 수용) 신청",
         "Critical 7일, High 30일 안에 조치해야 합니다. 기한 내 업그레이드가 불가능하면 보안팀 포털에서 위험 수용(예외)을 신청하고 최대 90일까지 연장됩니다.",
         "sla exception"),
       F("Risk acceptance request form",
         "Use this form when a vulnerable dependency cannot be upgraded in time: affected service, CVE, mitigation and a target date. Security approves within three days.",
         "exception"),
       M("RE: [Snyk] 3 new critical issues in payment-api",
         "Automated summary of new Snyk findings for payment-api with links to the issues.",
         "near")],
      [P("Snyk에서 critical 취약점 알림이 왔는데 라이브러리를 올리면 다른 게 다 깨져요. 이런 경우 예외 처리 받을 수 있나요?", "exception", "mixed", "question", ["security"])],
      [Q("plain", "What is the deadline to fix a critical vulnerability flagged by Snyk, and what if we can't make it?", "sla exception"),
       Q("terse", "snyk exception request?", "exception"),
       Q("rambling", "The scanner flagged a high-severity issue in an old XML parser pulled in by our PDF library. Upgrading the PDF library breaks half the invoice "
         "templates, and the vendor won't have a fix until March. Security keeps pinging me about the due date. Is there a formal way to accept the risk for a few months?",
         "exception"),
       Q("paraphrase", "보안 스캐너가 잡은 오픈소스 결함, 당장 고칠 수 없으면 유예 받는 절차 있어요?", "exception")],
      {"sla": ["vulnerability remediation SLA", "snyk critical fix deadline", "취약점 조치 기한"],
       "exception": ["risk acceptance request", "snyk vulnerability exception", "취약점 예외 신청"]}),

    T("oss-contribution", "engineering", "Legal", "Legal FAQ", ["legal", "oss"],
      "opensource oss upstream cla contributor 오픈소스",
      [F("Open source contribution policy",
         "You may send fixes to open-source projects we use, on work time, from your work GitHub account. Sign the project's CLA through Legal if it asks for one. "
         "Releasing a whole Contoso project as open source needs Legal and CTO approval.",
         "contribute publish", ext="pdf"),
       L("Signing CLAs: who signs for Contoso",
         "Individual CLAs are not allowed for work contributions. Send the CLA link to legal@contoso.com; Legal signs the corporate CLA and adds you to it.",
         "contribute"),
       F("오픈소스 공개(Outbound) 승인 절차",
         "사내 프로젝트를 public 저장소로 공개하려면 라이선스 선정, 비밀정보 점검, 법무·CTO 승인이 필요합니다. 신청은 법무팀 포털에서 합니다.",
         "publish"),
       L("오픈소스 라이선스 고지 파일 작성법",
         "앱에 포함된 오픈소스 목록과 라이선스 고지(NOTICE)를 만드는 방법입니다.",
         "near")],
      [P("업무 중에 쓰는 오픈소스 라이브러리 버그를 고쳤는데 upstream에 PR 보내도 되나요? 회사 승인 필요한가요?", "contribute", "mixed", "question", ["oss"])],
      [Q("plain", "Can I submit a bug fix to an open-source library we use, on work time?", "contribute"),
       Q("mixed", "우리 팀에서 만든 툴을 public repo로 공개하려면 승인 필요한가요?", "publish"),
       Q("terse", "CLA signing for upstream PRs?", "contribute")],
      {"contribute": ["open source contribution policy", "CLA corporate signing", "오픈소스 기여"],
       "publish": ["open source release approval", "오픈소스 공개 승인", "public repository approval legal"]}),

    T("ai-assistant", "engineering", "Security", "Security FAQ", ["security", "ai"],
      "chatgpt copilot genai llm openai 생성형",
      [F("Generative AI usage guideline",
         "Never paste customer data, personal data or unreleased financials into public AI services. Source code may only go into the approved tools: "
         "Contoso Chat (Azure OpenAI) and GitHub Copilot Business.",
         "policy approved copilot", ext="pdf"),
       L("생성형 AI 사용 가이드라인 (요약)",
         "고객 정보, 개인정보, 계약서 등 대외비 자료는 ChatGPT 같은 외부 AI 서비스에 입력할 수 없습니다. 사내 승인 도구(Contoso Chat, GitHub Copilot)만 사용하세요.",
         "policy"),
       M("[보안] 외부 AI 서비스에 사내 자료 입력 금지 안내",
         "최근 고객사 계약서 일부가 외부 AI 서비스에 입력된 사례가 확인되었습니다. 대외비 이상 자료는 외부 서비스에 넣지 말아 주세요.",
         "policy"),
       F("Contoso Chat: the internal AI assistant",
         "Contoso Chat runs on Azure OpenAI inside our tenant; prompts are not used for training. It is approved for internal and confidential documents.",
         "approved", ext="pptx"),
       L("GitHub Copilot Business: how to request a seat",
         "Request a Copilot seat in the IT portal; your manager approves. The seat is assigned within a day and works in VS Code and JetBrains IDEs.",
         "copilot", site="IT", lst="IT FAQ")],
      [P("저희 팀 요즘 회의록 정리나 메일 초안에 챗GPT를 꽤 많이 쓰는데요, 어제 누가 고객사 계약서 일부를 붙여 넣는 걸 보고 좀 놀랐어요. 보안팀 공지를 본 것 같기도 한데 "
         "기억이 안 나네요. 회사 자료를 외부 AI 서비스에 넣는 거 어디까지 괜찮은 건가요?", "policy", "rambling", "discussion", ["security"])],
      [Q("terse", "고객 데이터 ChatGPT 입력 가능?", "policy"),
       Q("plain", "Which AI assistants are we allowed to paste source code into?", "policy approved copilot"),
       Q("paraphrase", "Are generative models off-limits for drafting with confidential client material?", "policy"),
       Q("mixed", "Copilot 라이선스 받을 수 있나요? VS Code에서 쓰고 싶어요", "copilot")],
      {"policy": ["generative AI usage guideline", "ChatGPT confidential data policy", "생성형 AI 사용 가이드"],
       "approved": ["approved AI tools Contoso Chat", "internal AI assistant"],
       "copilot": ["GitHub Copilot seat request", "Copilot license", "코파일럿 신청"]}),

    T("os-update", "it", "IT", "IT FAQ", ["it"],
      "macos jamf deferral defer postpone 연기",
      [F("macOS update policy (Jamf): deadlines and deferrals",
         "Security updates are pushed through Jamf with a 7-day deadline. You can defer twice from the Self Service notification; after the deadline the Mac restarts "
         "at 18:00. For a longer delay, ask IT with a reason.",
         "mac", ext="pdf"),
       L("Windows 업데이트 정책 및 연기 방법 (Intune)",
         "월간 보안 업데이트는 배포 후 5일 안에 설치해야 합니다. 설정 > Windows 업데이트에서 최대 7일까지 일시 중지할 수 있고, 그 이상은 IT 승인이 필요합니다.",
         "win"),
       M("[IT공지] 11월 macOS 보안 업데이트 배포 일정",
         "11월 18일부터 macOS 15.1 업데이트가 배포됩니다. 설치 기한은 25일이며 알림에서 두 번까지 연기할 수 있습니다.",
         "mac"),
       L("Known issues after the macOS 15 upgrade",
         "Docker Desktop below 4.34 and older VPN clients fail after the upgrade; update them from Self Service.",
         "near")],
      [P("macOS update deadline popup, can I defer?", "mac", "terse", "question", ["it"])],
      [Q("plain", "업데이트 강제 설치 알림이 떴는데 발표 끝날 때까지 미룰 수 있나요?", "mac win"),
       Q("mixed", "Jamf에서 macOS 업데이트 deadline 알림이 계속 떠요. 며칠 연기 가능?", "mac"),
       Q("rambling", "We have the quarterly all-hands demo on Thursday and my whole setup is finally stable after two days of fiddling. Now a window keeps popping up "
         "saying the Mac will restart to install the new OS by Wednesday. Can I push that to next week without getting in trouble with IT?", "mac"),
       Q("paraphrase", "운영체제 새 버전 설치를 다음 주로 늦추고 싶어요", "mac win")],
      {"mac": ["macOS update deferral jamf", "update deadline postpone", "업데이트 연기"],
       "win": ["windows update pause intune", "윈도우 업데이트 연기"]}),

    T("disk-encryption", "it", "IT", "IT FAQ", ["it", "security"],
      "bitlocker filevault encryption recovery 복구키 암호화",
      [F("Finding your BitLocker recovery key",
         "Sign in to myaccount.microsoft.com > Devices > View BitLocker keys on another device, and match the key ID shown on the blue screen. "
         "If the key is not listed, call the IT helpdesk (ext. 2000) to read it out.",
         "recovery", ext="pdf"),
       L("BitLocker 복구 키 확인 방법",
         "다른 기기에서 myaccount.microsoft.com에 로그인해 장치 > BitLocker 키 보기에서 화면의 키 ID와 같은 48자리 키를 입력하세요.",
         "recovery"),
       F("FileVault: enabling disk encryption on macOS",
         "FileVault is required on every Mac. Enable it from Self Service; the recovery key is escrowed to Jamf automatically.",
         "near"),
       M("[IT] BIOS 업데이트 후 BitLocker 복구 키 요구 현상 안내",
         "이번 주 BIOS 업데이트 이후 일부 노트북에서 부팅 시 복구 키를 요구합니다. 키는 myaccount 페이지에서 확인할 수 있으며 한 번 입력하면 다시 묻지 않습니다.",
         "recovery")],
      [P("BitLocker 복구 키 입력하라는 파란 화면 떠요 ㅠㅠ 키 어디서 찾나요", "recovery", "mixed", "help", ["it"])],
      [Q("terse", "BitLocker recovery key?", "recovery", "help"),
       Q("rambling", "밤사이에 노트북이 BIOS 업데이트를 했는지 아침에 켜니까 파란 화면에서 48자리 키를 달라고 하네요. 헬프데스크는 계속 통화 중이고 한 시간 뒤에 "
         "임원 보고가 있어요. 제가 직접 키를 찾아볼 수 있는 곳이 있을까요?", "recovery", "help"),
       Q("paraphrase", "부팅 시 48자리 숫자를 요구하는데 확인 방법이?", "recovery", "help")],
      {"recovery": ["BitLocker recovery key myaccount", "bitlocker 48 digit key", "비트락커 복구 키"]}),

    T("mailbox-quota", "it", "IT", "IT FAQ", ["it", "outlook"],
      "quota quotas archive archiving 용량",
      [F("Mailbox size limits and what to do when it is full",
         "Mailboxes are 50 GB. At 49 GB you can no longer send. Empty Deleted Items, turn on the online archive, or move old mail there; IT does not raise the limit.",
         "full"),
       L("메일함 용량 관리 FAQ",
         "메일함 용량은 50GB이고 초과하면 메일 발송이 막힙니다. 온라인 보관(Archive)을 켜고 1년 이상 지난 메일을 자동 보관하도록 설정하세요.",
         "full archive"),
       F("Online archive in Outlook",
         "Turn on the online archive from the IT portal; it adds 100 GB. Then set a retention tag so mail older than a year moves there automatically.",
         "archive full"),
       M("[IT] 메일함 95% 도달 알림 메일 안내",
         "메일함이 95%에 도달하면 자동 알림이 발송됩니다. 알림을 받으시면 지운 편지함을 비우고 온라인 보관을 사용해 주세요.",
         "full")],
      [P("I've been on a lot of customer threads with big attachments this quarter, and since Monday Outlook shows a yellow bar saying my mailbox is almost full, "
         "49.5 GB of 50 GB. I already emptied Deleted Items but it barely moved. Can IT just increase it, or do I really have to go through years of mail and delete stuff?",
         "full", "rambling", "help", ["outlook"])],
      [Q("terse", "메일함 용량 초과", "full", "help"),
       Q("mixed", "Outlook에서 mailbox 거의 full이라고 경고 떠요, 용량 늘려주나요?", "full", "help"),
       Q("paraphrase", "Email won't go out anymore, just a warning about storage being exceeded. What are my options?", "full", "help"),
       Q("plain", "My mailbox keeps hitting the 50 GB limit. Would the online archive fix that, and how do I turn it on?", "archive full")],
      {"full": ["mailbox full 50 GB", "outlook mailbox quota", "메일함 용량 초과"],
       "archive": ["outlook online archive", "retention tag archive", "온라인 보관"]}),

    T("edr-agent", "it", "Security", "Security FAQ", ["security", "it"],
      "crowdstrike falcon edr antivirus exclusion exclusions 백신",
      [F("CrowdStrike Falcon: performance and scan exclusions",
         "Falcon scans files as they are written, so large builds can use a lot of CPU. Security can exclude build output folders (for example ~/work/*/build) "
         "on request; source folders are never excluded.",
         "perf"),
       L("EDR 예외(Exclusion) 요청 방법",
         "빌드 폴더 스캔 제외나 격리된 파일 복구는 보안팀 포털에서 EDR 예외 요청으로 신청합니다. 경로, 사유, 기간을 적어 주세요.",
         "perf"),
       L("Quarantined files: how to request a release",
         "If Falcon quarantines a tool you built, do not disable the agent. File a release request with the file hash; Security reviews it the same day.",
         "near"),
       M("[보안] EDR 에이전트 7.1 업데이트: 빌드 시 CPU 사용량 개선",
         "7.1 버전부터 개발자 PC의 빌드 중 CPU 사용량이 줄어듭니다. 업데이트는 다음 주 자동 배포됩니다.",
         "perf")],
      [P("CrowdStrike가 빌드할 때 CPU 100% 먹어요.. 빌드 폴더 예외 등록 되나요?", "perf", "mixed", "help", ["security"])],
      [Q("plain", "The security agent on my laptop uses a lot of CPU whenever I compile. Can build folders be excluded from scanning?", "perf"),
       Q("terse", "Falcon sensor high CPU", "perf", "help"),
       Q("rambling", "지난주 화요일부터 Gradle 빌드 시간이 두 배가 됐어요. 처음엔 안드로이드 스튜디오 탓인 줄 알았고 그다음엔 사내망을 의심했는데, 활동 모니터를 보니 "
         "빌드할 때마다 falcond라는 프로세스가 90%를 먹네요. 리눅스 쓰는 팀원들은 괜찮대요. 이게 보안 프로그램인가요? 제 작업 폴더는 빼 달라고 할 수 있나요?",
         "perf", "help")],
      {"perf": ["crowdstrike high cpu build", "EDR scan exclusion request", "백신 빌드 CPU"]}),

    T("long-service-leave", "hr", "People", "HR FAQ", ["hr"],
      "sabbatical 장기근속 리프레시 근속",
      [F("장기근속 포상 휴가 규정",
         "근속 5년 10일, 10년 20일의 리프레시 휴가를 부여합니다. 근속 기념일부터 1년 안에 사용해야 하며, 연차와 붙여서 쓸 수 있습니다.",
         "entitle combine", ext="pdf"),
       L("Long-service leave (refresh leave) FAQ",
         "5 years: 10 days, 10 years: 20 days. Use it within a year of your anniversary, in one or two blocks; it can be combined with annual leave.",
         "entitle combine"),
       M("[인사] 2025년 장기근속자 포상 안내",
         "올해 근속 5년·10년을 맞은 분들께 리프레시 휴가와 상품권을 드립니다. 휴가는 Workday에 자동 부여되었습니다.",
         "entitle"),
       L("장기근속 기념품 선택 안내",
         "근속 기념품(시계, 상품권, 여행 바우처) 중 하나를 11월 말까지 선택해 주세요.",
         "near")],
      [P("5년 근속하면 리프레시 휴가 나온다던데 며칠이고 언제까지 써야 하나요?", "entitle", "plain", "question", ["hr"])],
      [Q("rambling", "I hit my 5-year anniversary this month and the team took me out for lunch, which was nice. Someone mentioned there's extra leave for that, "
         "but I can't find it in Workday. How many days of long-service leave do I get, and when does it expire?", "entitle"),
       Q("terse", "sabbatical at 10 years?", "entitle"),
       Q("mixed", "refresh 휴가랑 연차 붙여서 써도 되나요? 3주 유럽 가려고요", "entitle combine"),
       Q("paraphrase", "Is there extra paid time off for people who've stayed with the company a long time?", "entitle")],
      {"entitle": ["long-service leave days", "refresh leave 5 years", "장기근속 휴가"],
       "combine": ["refresh leave combine annual leave", "리프레시 휴가 연차 같이"]}),

    T("internal-transfer", "hr", "People", "HR FAQ", ["hr", "career"],
      "transfer transfers mobility 사내공모 전보 부서이동",
      [F("사내공모(Internal Job Posting) 운영 지침",
         "사내공모 포지션은 매월 첫째 주 메일과 Workday 채용 메뉴에 게시됩니다. 근속 1년 이상이면 지원할 수 있고, 서류 합격 전까지 현 팀장에게 알리지 않습니다.",
         "apply manager", ext="pdf"),
       L("Internal mobility FAQ",
         "Apply to internal openings in Workday > Jobs. You need a year in your current role. Your manager is told only after the hiring team wants to interview you.",
         "apply manager"),
       M("[채용] 12월 사내공모 포지션 안내",
         "추천팀 ML 엔지니어, 결제팀 백엔드 등 5개 포지션을 사내공모합니다. 12월 15일까지 Workday에서 지원하세요.",
         "apply"),
       F("Internal transfer: talking to your manager",
         "When and how to tell your current manager about an internal move, and how the handover date is agreed.",
         "manager", ext="pptx")],
      [P("I've been on the payments team for almost three years and I love the people, but I'd really like to try ML work. I saw there's an opening on the "
         "recommendations team in the internal job board email. I'm not sure how the process works here. Do I just message the hiring manager directly?",
         "apply", "rambling", "question", ["career"]),
       P("사내공모 지원 시 현 팀장 승인 필요?", "manager", "terse", "question", ["hr"])],
      [Q("plain", "사내 공모 공고는 어디서 보고, 지원은 어떻게 하나요?", "apply"),
       Q("plain", "If I apply for an internal job posting, does my current manager find out?", "manager"),
       Q("mixed", "다른 팀 opening에 apply 하고 싶은데 지금 팀장님께 먼저 말해야 하나요?", "apply manager"),
       Q("paraphrase", "Thinking of moving to another department. How does switching roles in-house go?", "apply")],
      {"apply": ["internal job posting apply workday", "사내공모 지원", "internal mobility"],
       "manager": ["internal transfer manager approval", "사내공모 팀장 통보"]}),

    T("stock-options", "hr", "Finance", "Equity FAQ", ["equity"],
      "vesting vested carta 스톡옵션 equity",
      [F("Equity at Contoso: stock option plan overview",
         "Options vest over four years with a one-year cliff. Vested options can be exercised in Carta during the quarterly exercise windows; tax is withheld through payroll.",
         "exercise", ext="pdf"),
       L("Carta에서 스톡옵션 행사하기",
         "Carta 로그인 > Portfolio > Exercise에서 수량을 입력하고 행사 대금을 지정 계좌로 송금합니다. 행사 버튼은 분기별 행사 기간에만 보입니다.",
         "exercise"),
       L("Exercising options in Carta (step by step)",
         "Choose the grant, the number of vested options and the payment method; the exercise is confirmed after Finance receives the payment.",
         "exercise"),
       F("스톡옵션 행사 시 세금 안내",
         "비상장 주식 스톡옵션 행사 이익은 근로소득으로 과세되며 행사한 달 급여에서 원천징수됩니다. 벤처기업 특례 요건도 함께 확인하세요.",
         "near", ext="pdf"),
       M("[재무] 4분기 스톡옵션 행사 기간 안내 (12/1~12/12)",
         "이번 분기 행사 기간은 12월 1일부터 12일까지입니다. 기간 외에는 Carta에서 행사 버튼이 보이지 않습니다.",
         "exercise")],
      [P("Where do I actually exercise vested options? I see the grant in Carta but no exercise button.", "exercise", "plain", "question", ["equity"])],
      [Q("mixed", "Carta에서 vested 된 스톡옵션 행사하려면 어떻게 해요?", "exercise"),
       Q("terse", "스톡옵션 행사 방법", "exercise"),
       Q("rambling", "입사할 때 받은 스톡옵션이 이번 달에 드디어 일부 vesting 됐다는 메일을 받았어요. 솔직히 잊고 지냈는데 이사 때문에 돈 계산하다가 생각났네요. "
         "근데 Carta 들어가 봐도 어디서 실제로 사는 건지 모르겠어요. 행사하려면 뭘 눌러야 하나요?", "exercise")],
      {"exercise": ["carta exercise stock options", "exercise window", "스톡옵션 행사"]}),

    T("retirement-pension", "hr", "People", "HR FAQ", ["hr", "benefits"],
      "pension pensions retirement 퇴직연금 연금 irp",
      [F("퇴직연금(DC) 운용상품 변경 방법",
         "DC형 퇴직연금은 미래에셋 퇴직연금 사이트에서 운용 지시를 변경합니다. 미지정 시 디폴트옵션(저위험 TDF)에 적립됩니다. 변경은 언제든 가능합니다.",
         "change"),
       L("Retirement pension (DC) FAQ",
         "Change your DC investment mix on the provider's site at any time. Early withdrawal is allowed only for legal reasons such as buying a first home; HR issues the confirmation.",
         "change"),
       L("퇴직연금 중도인출 요건 및 신청서류",
         "무주택자 주택 구입, 전세 보증금, 6개월 이상 요양 등 법정 사유만 가능합니다. 매매계약서와 무주택 확인서를 인사팀에 제출하세요.",
         "near"),
       M("[인사] 퇴직연금 운용지시 안내 (디폴트옵션 도입)",
         "7월부터 운용 지시를 하지 않은 적립금은 디폴트옵션으로 운용됩니다. 원하는 상품으로 바꾸려면 사업자 사이트에서 운용 지시를 변경하세요.",
         "change")],
      [P("Switching funds in my DC pension?", "change", "terse", "question", ["benefits"])],
      [Q("plain", "퇴직연금 DC 계좌에서 운용 상품을 바꾸고 싶은데 어디서 하나요?", "change"),
       Q("mixed", "DC형 퇴직연금 default option이 뭔지, 포트폴리오 rebalancing 가능해요?", "change"),
       Q("paraphrase", "회사에서 적립해 주는 노후자금을 주식형 펀드로 돌리려면?", "change")],
      {"change": ["DC pension change investment", "퇴직연금 운용상품 변경", "디폴트옵션"]}),

    T("daycare", "hr", "People", "HR FAQ", ["hr", "family"],
      "daycare nursery kindergarten 어린이집 보육",
      [F("직장어린이집 입소 신청 안내 (2026학년도)",
         "정원 49명, 만 1~5세. 신청은 매년 12월 1~15일 HR 포털에서 받으며 맞벌이·다자녀·한부모 가정을 우선 선발합니다. 결과는 1월 둘째 주에 발표합니다.",
         "apply", ext="pdf"),
       L("Company daycare center: FAQ",
         "49 places for children aged 1 to 5 in the B1 of the Pangyo building. Applications open 1 to 15 December; priority for dual-income and multi-child families.",
         "apply"),
       M("[공지] 직장어린이집 신규 원아 모집 (12/1~12/15)",
         "2026학년도 신규 원아를 모집합니다. 연령별 잔여 정원과 신청 방법은 첨부 파일을 확인해 주세요.",
         "apply"),
       L("어린이집 운영시간 및 등하원 규칙",
         "운영시간 07:30~19:30, 하원은 보호자 또는 등록된 대리인만 가능합니다.",
         "near")],
      [P("내년 3월에 복직 예정인데 아직 아이 맡길 곳을 못 정했어요. 집 근처 국공립은 대기가 80번대라 거의 포기했고요. 회사 건물에 어린이집이 있다는 얘기를 들었는데 "
         "정원이 얼마나 되는지, 신청은 언제 받는지 궁금합니다.", "apply", "rambling", "question", ["family"])],
      [Q("plain", "When does registration open for the company daycare, and how is priority decided?", "apply"),
       Q("terse", "직장어린이집 대기 순번", "apply"),
       Q("mixed", "직장 어린이집 입소 신청 deadline 언제예요?", "apply"),
       Q("paraphrase", "Is there an on-site nursery for employees' kids, and how do I get a spot?", "apply")],
      {"apply": ["company daycare application", "직장어린이집 입소 신청", "daycare priority"]}),

    T("reserve-training", "hr", "People", "HR FAQ", ["hr"],
      "reservist reservists military 예비군 민방위 공가",
      [F("예비군·민방위 훈련 공가 처리 기준",
         "예비군·민방위 훈련은 공가로 처리되어 연차가 차감되지 않습니다. 훈련 통지서를 첨부해 Workday에 '공가(훈련)'로 신청하세요.",
         "leave workday", ext="pdf"),
       L("Military reserve training: official leave",
         "Reserve forces and civil defence training are paid official leave, not annual leave. Request 'Official leave (training)' in Workday and attach the notice.",
         "leave workday"),
       F("Workday 근태 유형별 입력 가이드",
         "연차, 반차, 병가, 공가(훈련·투표·검진) 등 근태 유형별로 Workday에서 신청하는 방법을 정리했습니다.",
         "workday", ext="pptx"),
       M("[인사] 예비군 훈련 통지서 제출 안내",
         "훈련 공가 신청 시 통지서 사본을 꼭 첨부해 주세요. 첨부가 없으면 연차로 처리될 수 있습니다.",
         "leave workday")],
      [P("예비군 훈련 날 공가 처리 어떻게 하나요? 연차 차감되나요?", "leave workday", "plain", "question", ["hr"])],
      [Q("paraphrase", "Do I lose vacation days when I'm called up for military refresher drills?", "leave"),
       Q("terse", "reservist training day: official leave?", "leave"),
       Q("mixed", "민방위 교육 가는 날 Workday에서 근태 뭐로 올려요?", "workday"),
       Q("rambling", "I'm one of the few Koreans on an otherwise expat team, so nobody here knows this. I have my 4th-year reservist training next Thursday, "
         "eight hours in Bucheon. My manager is fine with it, but I don't see a matching option in Workday, only annual leave and sick leave. What am I supposed to select?", "workday")],
      {"leave": ["reserve training official leave", "예비군 공가 연차 차감", "military training paid leave"],
       "workday": ["workday official leave training", "예비군 공가 workday", "민방위 훈련 근태 입력"]}),

    T("side-job", "hr", "People", "HR FAQ", ["hr", "legal"],
      "moonlighting sidejob freelance freelancing 겸업 부업",
      [F("겸업 신고 및 승인 지침",
         "근무시간 외 영리활동(강의, 자문, 유튜브 수익, 프리랜서 개발 등)은 사전에 겸업 신고서를 제출해 승인받아야 합니다. 경쟁사 관련 활동은 승인되지 않습니다.",
         "report", ext="pdf"),
       F("Outside employment and side projects policy",
         "Paid work outside Contoso, including teaching, consulting and ad revenue from content, must be declared in advance and approved by HR and your manager.",
         "report", ext="pdf"),
       F("겸업 신고서 양식",
         "활동 내용, 기간, 예상 소득, 회사 업무와의 관련성을 적는 신고서 양식입니다. 작성 후 인사팀 메일로 보내 주세요.",
         "report"),
       M("Annual conflict-of-interest declaration due 31 January",
         "Once a year everyone confirms in Workday that outside jobs, board seats and investments have been declared.",
         "near")],
      [P("유튜브 수익 생기면 겸업 신고 해야함?", "report", "terse", "question", ["hr"])],
      [Q("plain", "Do I need approval to teach a weekend coding course at a bootcamp?", "report"),
       Q("rambling", "I've been making woodworking videos on YouTube for fun for two years, and the channel started earning a little ad money last month. "
         "Someone at dinner said employees have to declare any outside income or it's a contract violation. Is that true here, and what's the form?", "report"),
       Q("plain", "퇴근 후에 스타트업 기술 자문을 해 달라는 제안을 받았는데 회사에 신고하거나 허락받아야 하나요?", "report"),
       Q("paraphrase", "Can I earn money outside my day job here, or do I need the company's OK first?", "report")],
      {"report": ["outside employment declaration", "겸업 신고", "side job approval policy"]}),

    T("dress-code", "facilities", "GeneralAffairs", "Office FAQ", ["office"],
      "dress attire shorts sneakers 복장 반바지 슬리퍼",
      [F("복장 가이드 (Dress code)",
         "평상시 자율 복장입니다. 반바지와 샌들도 가능하나 슬리퍼, 민소매는 피해 주세요. 고객사 방문이나 외부 행사 때는 비즈니스 캐주얼을 입습니다.",
         "casual", ext="pdf"),
       L("Dress code FAQ",
         "Everyday wear is casual: shorts and sandals are fine, flip-flops and sleeveless tops are not. Wear business casual when you meet customers.",
         "casual"),
       M("[총무] 하절기 복장 안내",
         "6월부터 9월까지 반바지 착용이 가능합니다. 단, 고객 응대 부서는 팀 기준을 따라 주세요.",
         "casual"),
       F("Client visits: meeting etiquette",
         "What to wear, what to bring and how to exchange business cards when you visit a customer.",
         "near", ext="pptx")],
      [P("반바지 출근 가능?", "casual", "terse", "question", ["office"])],
      [Q("plain", "Is it okay to wear shorts to the office in summer?", "casual"),
       Q("paraphrase", "평소 옷차림에 제한이 있나요? 뭘 입으면 안 되는지 궁금해요", "casual"),
       Q("rambling", "First week here, coming from a bank where suits were mandatory, so I've been overdressed every single day. I noticed people in hoodies "
         "and even flip-flops. Is there any written guideline, or is anything fine?", "casual")],
      {"casual": ["dress code office", "복장 규정 반바지", "shorts allowed"]}),

    T("group-insurance", "hr", "People", "Benefits FAQ", ["benefits"],
      "insurance insurer claim claims 단체보험 실손 보험",
      [F("단체보험 보장 내용 및 청구 방법",
         "임직원 단체 실손보험은 입원·통원 의료비를 보장하며 배우자와 자녀도 포함됩니다. 청구는 DB손해보험 앱에서 영수증과 진료비 세부내역서를 올리면 됩니다.",
         "claim family", ext="pdf"),
       L("Group insurance: how to file a claim",
         "Claim hospital and clinic costs in the DB Insurance app: upload the receipt and the itemised bill. Payment takes about five business days.",
         "claim"),
       L("단체보험 가족 보장 범위 (배우자·자녀)",
         "배우자와 만 25세 이하 자녀는 별도 가입 없이 보장됩니다. 부모님은 본인 부담으로 추가 가입할 수 있습니다.",
         "family"),
       M("[인사] 2026년 단체보험 갱신 및 보장 변경 안내",
         "1월 1일부터 통원 한도가 회당 30만 원으로 늘고 배우자 보장이 확대됩니다. 청구 방법은 동일합니다.",
         "family")],
      [P("단체보험 실손 청구 어디서 해요? 병원비 영수증 있음", "claim", "mixed", "question", ["benefits"])],
      [Q("plain", "How do I claim hospital bills under the company group insurance?", "claim"),
       Q("terse", "group insurance claim form?", "claim"),
       Q("paraphrase", "병원 진료비 회사 통해서 돌려받는 방법 있나요?", "claim"),
       Q("rambling", "My wife had minor surgery last month and we paid about 1.2 million won out of pocket. Someone mentioned the company insurance also covers "
         "spouses, but I can't find anything on the intranet about family members. Does it, and is there a separate form for dependants?", "family claim")],
      {"claim": ["group insurance claim", "단체보험 실손 청구", "DB insurance app claim"],
       "family": ["group insurance spouse coverage", "단체보험 배우자 자녀"]}),

    T("card-limit", "finance", "Finance", "Finance FAQ", ["finance"],
      "limit limits 한도 증액 상향",
      [L("법인카드 한도 및 임시 증액 신청",
         "직급별 월 한도는 팀원 300만 원, 팀장 500만 원입니다. 출장·행사 등으로 일시적으로 더 필요하면 재무 포털에서 임시 증액을 신청하세요. 보통 당일 처리됩니다.",
         "raise"),
       F("Corporate card limits by grade",
         "Monthly limits for each grade and the merchant categories that are blocked.",
         "near", ext="xlsx"),
       L("Temporary limit increase request (Finance portal)",
         "Request a temporary increase with the amount, dates and reason; your manager approves and the card issuer applies it within a few hours.",
         "raise"),
       M("RE: 해외 출장 중 법인카드 승인 거절",
         "월 한도 초과로 거절된 건입니다. 재무 포털에서 임시 증액을 신청하시면 카드사 반영까지 2~3시간 걸립니다. 급하면 재무팀 내선 3100으로 연락 주세요.",
         "raise")],
      [P("My corporate card got declined at the hotel in Singapore. I think I hit the monthly limit. How do I get a temporary increase?", "raise", "plain", "help", ["finance"])],
      [Q("terse", "법카 한도 상향", "raise"),
       Q("rambling", "다음 주에 팀 워크숍이 제주도라 숙소랑 렌터카를 제 법인카드로 한 번에 결제해야 하는데요, 총액이 600만 원 정도 나올 것 같아요. 제 카드는 월 300이라 "
         "분명 막힐 텐데, 임시로 올리는 게 가능한지, 며칠 전에 요청해야 하는지 알고 싶어요.", "raise"),
       Q("paraphrase", "Payment refused on the company Visa abroad. Who can lift the ceiling quickly?", "raise", "help"),
       Q("mixed", "법인카드 monthly limit 넘을 것 같으면 어디서 올려요?", "raise")],
      {"raise": ["corporate card temporary limit increase", "법인카드 한도 증액", "finance portal card limit"]}),

    T("budget-planning", "finance", "Finance", "Finance FAQ", ["finance"],
      "fy2026 fy26 forecast 편성 예산",
      [F("FY2026 budget planning guide",
         "Team budgets for next year are entered in the template and submitted to FP&A by 28 November. Headcount, software and travel are separate tabs.",
         "submit", ext="pdf"),
       M("[재무] 2026년 예산 편성 일정 안내",
         "팀별 2026년 예산안은 11월 28일까지 FP&A에 제출해 주세요. 양식은 재무 사이트의 예산 템플릿을 사용하고, 12월 둘째 주에 본부장 리뷰가 있습니다.",
         "submit"),
       F("Budget template FY2026",
         "Excel template with tabs for headcount, software, travel and other operating costs, with last year's actuals pre-filled.",
         "submit", ext="xlsx"),
       L("예산 편성 FAQ",
         "예산안은 팀장이 작성해 FP&A에 제출합니다. 인건비는 인사팀이 채우고, 팀은 운영비·SW·출장비만 입력하면 됩니다.",
         "submit"),
       F("FY2025 budget vs actual (Q3)",
         "Spend against budget by department for the first three quarters of this year.",
         "near", ext="xlsx")],
      [],
      [Q("plain", "When is the deadline for submitting next year's team budget, and which template do we use?", "submit"),
       Q("mixed", "2026 예산 편성 template 어디 있어요? FP&A에 언제까지 내야 해요?", "submit"),
       Q("terse", "FY26 budget template?", "submit")],
      {"submit": ["FY2026 budget planning template", "예산 편성 제출 기한", "FP&A budget submission"]}),

    T("patent-reward", "finance", "Legal", "Legal FAQ", ["legal"],
      "patent patents invention inventor inventors 특허 직무발명",
      [F("직무발명 신고 및 보상 규정",
         "업무 중 발명은 직무발명 신고서로 IP팀에 신고합니다. 출원 시 50만 원, 등록 시 200만 원을 발명자에게 지급하고, 공동 발명자는 기여율대로 나눕니다.",
         "file reward", ext="pdf"),
       F("Invention disclosure form",
         "Describe the problem, your solution, prior art you know of and the co-inventors. Send it to ip@contoso.com.",
         "file"),
       L("Inventor reward scheme",
         "Inventors receive 500,000 KRW when a patent is filed and 2,000,000 KRW when it is granted, split between co-inventors by contribution.",
         "reward"),
       M("[법무] 2025년 하반기 직무발명 보상금 지급 안내",
         "하반기에 등록된 특허 12건의 발명자에게 12월 급여와 함께 보상금이 지급됩니다.",
         "reward"),
       F("Patent search databases for engineers",
         "How to search KIPRIS and Google Patents for prior art.",
         "near", ext="pptx")],
      [P("patent bonus for inventors?", "reward", "terse", "question", ["legal"])],
      [Q("plain", "How do I submit an invention disclosure for something I built at work?", "file"),
       Q("plain", "특허 등록되면 발명자한테 보상금 나오나요? 얼마 정도인지 궁금해요", "reward"),
       Q("rambling", "Our team filed a patent last year on the routing algorithm I designed, and I just heard it was granted in Korea. A colleague at Naver said they "
         "got a bonus when theirs was registered. Does Contoso pay anything to inventors, and is it split between co-inventors?", "reward"),
       Q("mixed", "직무발명 보상금 받으려면 invention disclosure부터 내야 하나요?", "file reward")],
      {"file": ["invention disclosure form", "직무발명 신고", "patent filing IP team"],
       "reward": ["inventor reward patent granted", "직무발명 보상금", "patent bonus"]}),

    T("ethics-hotline", "finance", "Compliance", "Compliance FAQ", ["compliance"],
      "whistleblower whistleblowing misconduct retaliation speakup 제보 익명",
      [F("윤리 제보 채널 안내",
         "부정행위, 괴롭힘, 이해충돌은 익명 제보 채널(speakup.contoso.com)이나 감사팀 메일로 제보할 수 있습니다. 제보자 정보는 감사팀만 보며 불이익은 금지됩니다.",
         "report anon", ext="pdf"),
       F("Speak Up: reporting concerns",
         "Report misconduct through the Speak Up portal, anonymously if you wish. Only the audit team sees reports; you can follow up with a case key without revealing your name.",
         "report anon", ext="pdf"),
       L("Non-retaliation policy",
         "Anyone who reports in good faith is protected. Retaliation is a disciplinary offence.",
         "anon"),
       M("[윤리경영] 외부 제보 채널(EthicsPoint) 개설 안내",
         "외부 기관이 운영하는 제보 채널을 추가로 개설했습니다. 전화와 웹으로 24시간 제보할 수 있고 익명이 보장됩니다.",
         "report anon")],
      [P("팀 안에서 좀 불편한 일이 계속 있어서 고민 중인데요, 윗선에 직접 말하기는 어렵고 익명 제보 채널이 있다고 들었어요. 근데 팀이 작다 보니 내용만 봐도 "
         "누군지 알 것 같아서 걱정이에요. 익명으로 제보하면 정말 익명이 보장되나요?", "anon", "rambling", "question", ["compliance"])],
      [Q("plain", "How can I report misconduct by a manager without my name attached?", "report anon"),
       Q("terse", "익명 제보 신원 보호?", "anon"),
       Q("mixed", "윤리 hotline에 제보하면 제 이름 남나요? 외부 channel도 있다던데", "report anon"),
       Q("paraphrase", "If I flag wrongdoing in my department, will anyone be able to trace it back to me?", "anon")],
      {"report": ["speak up misconduct report", "윤리 제보 채널", "ethics hotline"],
       "anon": ["anonymous report non-retaliation", "익명 제보 보장", "whistleblower protection"]}),

    T("pool-car", "facilities", "GeneralAffairs", "Office FAQ", ["facilities"],
      "poolcar vehicle vehicles 차량 법인차량",
      [F("업무용 차량(Pool car) 예약 및 이용 수칙",
         "업무용 차량 4대는 Outlook 리소스(POOLCAR-1~4)로 예약합니다. 키는 1층 안내데스크에서 받고, 주유는 차량에 비치된 주유카드로 합니다.",
         "book", ext="pdf"),
       L("Pool cars: booking and rules",
         "Book one of the four pool cars as an Outlook resource, pick up the key at reception and return it with at least half a tank.",
         "book"),
       L("사고 발생 시 처리 절차 (업무용 차량)",
         "사고가 나면 보험사(1588-0100)에 먼저 신고하고 총무팀에 사진과 함께 알려 주세요. 경미한 긁힘도 신고해야 합니다.",
         "accident"),
       M("RE: 차량 예약 방식 변경 안내 (11월부터 Outlook 리소스)",
         "11월부터 업무용 차량은 엑셀 대장이 아닌 Outlook 리소스로 예약합니다. 하루 전까지 예약해 주세요.",
         "book")],
      [P("업무용 차량 예약 어디서 해요? 내일 평택 고객사 가야 함", "book", "mixed", "question", ["facilities"])],
      [Q("plain", "How do I book a company car for a customer visit tomorrow?", "book"),
       Q("paraphrase", "Is there a shared vehicle I can take to a client site outside Seoul?", "book"),
       Q("rambling", "어제 업무용 차량으로 고객사 다녀오다가 주차장에서 기둥에 살짝 긁었어요. 상대 차량은 없고 범퍼에 스크래치 정도인데요, 보험 처리를 해야 하는 건지 "
         "총무팀에 먼저 말해야 하는 건지 모르겠어요.", "accident", "help"),
       Q("terse", "법인차량 예약", "book")],
      {"book": ["pool car booking outlook resource", "업무용 차량 예약", "company car reservation"],
       "accident": ["pool car accident procedure", "업무용 차량 사고 처리"]}),

    T("shredding", "facilities", "GeneralAffairs", "Office FAQ", ["facilities", "security"],
      "shred shredding shredder disposal 파쇄 파기 폐기",
      [F("보안 문서 파기 절차",
         "대외비 종이 문서는 일반 재활용함에 버리지 말고 각 층 복합기 옆의 잠금식 보안 파쇄함에 넣어 주세요. 매주 목요일 전문 업체가 수거해 파쇄합니다.",
         "paper", ext="pdf"),
       L("Confidential paper disposal: shred bins",
         "Locked shred bins are next to the printers on every floor. Don't put confidential paper in recycling. Bins are emptied every Thursday.",
         "paper"),
       L("저장매체 폐기 요청 (HDD/USB)",
         "하드디스크, USB, SD카드 등 저장매체는 IT 헬프데스크에 폐기 요청하면 물리 파쇄 후 폐기 확인서를 발급합니다.",
         "media"),
       M("[총무] 보안문서 파쇄함 수거 요일 변경 안내",
         "12월부터 보안 파쇄함 수거가 목요일에서 화요일로 바뀝니다. 대량 파기는 총무팀에 별도 요청해 주세요.",
         "paper"),
       F("IT asset disposal policy",
         "Storage devices are wiped or physically destroyed by the IT helpdesk, which issues a certificate of destruction.",
         "media", ext="pdf", site="IT")],
      [],
      [Q("plain", "Where do I dispose of confidential paper documents? The recycling bin doesn't feel right.", "paper"),
       Q("terse", "문서 파쇄", "paper"),
       Q("rambling", "We're cleaning out the old storage room on 7F before the move and found a box of external hard drives and USB sticks from a project that "
         "ended in 2019. Some probably have customer data on them. I don't want to just throw them out. Is there a proper disposal process for storage media?", "media"),
       Q("mixed", "보안문서 shred 박스 몇 층에 있어요? 수거는 언제 해요?", "paper")],
      {"paper": ["confidential paper shred bin", "보안 문서 파쇄", "document disposal"],
       "media": ["storage media disposal hard drive", "저장매체 폐기 요청", "certificate of destruction"]}),
]


# --------------------------------------------------------------------------
# Distractor documents: they share words with the topics above but answer
# none of the questions. (site, list) default to the "General" site.

def DF(title, body, site, ext="docx", user=None):
    return dict(kind="file", title=title, body=body, asp=[], ext=ext, site=site, user=user)


def DL(title, body, site, lst):
    return dict(kind="list_item", title=title, body=body, asp=[], lst=lst, site=site)


def DM(title, body):
    return dict(kind="mail", title=title, body=body, asp=[])


DISTRACTORS = [
    DF("Migration of HR records to Workday: cutover plan", "Timeline for moving personnel files and leave balances from the old HR system to Workday over the 14 December weekend.", "HR"),
    DM("[IT] 사내 메일 서버 이전(마이그레이션) 완료 안내", "주말 동안 메일 서버 이전 작업이 완료되었습니다. 모바일 메일 앱은 한 번 다시 로그인해 주세요."),
    DL("Table tennis league: schedule", "Matches are played on Tuesdays and Thursdays at 18:30 in the 3F lounge. Sign-up sheet in the clubs list.", "Clubs", "Club Notices"),
    DF("Package delivery rules for the mailroom", "Business parcels are received at the 1F mailroom between 09:00 and 17:00 and announced by Teams message.", "GeneralAffairs", "pdf"),
    DL("택배 보관함 이용 수칙", "개인 택배는 회사로 받을 수 없습니다. 업무용 택배만 1층 보관함에서 수령하세요.", "GeneralAffairs", "Notices"),
    DM("Old workstation graphics cards up for grabs", "The robotics club can take the twelve GTX 1080 cards from the retired design workstations. Reply by Friday."),
    DL("Queue at the cafeteria: new order kiosks", "Two self-order kiosks were added at the 2F cafeteria to shorten the lunch queue.", "GeneralAffairs", "Notices"),
    DF("9층 회의실 공기질·환기(Airflow) 측정 결과", "9층 회의실 6곳의 이산화탄소 농도와 환기량 측정 결과입니다. 백두·한라 회의실은 환기 설비를 보강합니다.", "GeneralAffairs", "pdf"),
    DF("Crash course: Excel pivot tables for Finance", "Slides from the one-hour Excel session for finance analysts: pivots, slicers and XLOOKUP.", "Finance", "pptx"),
    DM("[총무] 사내 기기 대여 안내: 빔프로젝터·카메라·마이크", "외부 행사용 빔프로젝터, DSLR 카메라, 무선 마이크는 총무팀에서 대여합니다. 사흘 전에 신청해 주세요."),
    DL("Device trade-in program for personal phones", "Trade in your personal phone at the partner shop in the lobby for a discount on a new model.", "Benefits", "Perks"),
    DF("Sending large files to customers (OneDrive external links)", "How to share files above 25 MB with customers through OneDrive links that expire after 14 days.", "IT", "pdf"),
    DM("Brand asset repository moved to Brandfolder", "Logos, product screenshots and photo libraries now live in Brandfolder. The old SharePoint folder becomes read-only on Monday."),
    DL("CDN 계약 갱신 및 비용 검토 (구매팀)", "CDN 공급사 계약이 3월에 만료되어 구매팀에서 견적을 비교 중입니다. 의견은 구매 담당자에게 보내 주세요.", "Procurement", "Contracts"),
    DF("Website image guidelines for Marketing", "Image sizes, formats (WebP first) and alt text rules for the marketing website.", "Marketing", "pdf"),
    DM("Bug bounty program: reports from external researchers", "Our public bug bounty accepts reports about contoso.com. Internal staff cannot participate; report internal findings to Security."),
    DF("취약계층 지원 봉사활동 안내", "12월 셋째 주 토요일, 지역 취약계층 가정에 연탄을 나르는 봉사활동을 합니다. 참가 신청은 사회공헌팀으로.", "CSR"),
    DL("Open house for families: 20 December", "Bring your family to see the office, with a magic show for children in the 3F hall.", "GeneralAffairs", "Events"),
    DF("Open-plan office etiquette", "Use phone booths for calls, keep desks clear at the end of the day and use headphones for music.", "GeneralAffairs", "pdf"),
    DM("AI Day 2026: call for demos", "Show what your team built with machine learning this year. Demo slots are 10 minutes; sign up by 15 January."),
    DF("AI 기초 교육 과정 수강 신청 (사내 아카데미)", "비개발 직군을 위한 4주 AI 기초 과정입니다. 사내 아카데미에서 12월 5일까지 수강 신청하세요.", "HR", "pdf"),
    DM("Windows 10 end of support: laptop replacement schedule", "Laptops that cannot run Windows 11 will be replaced between January and March, by department."),
    DL("회의실 디스플레이 펌웨어 업데이트 일정", "12월 2일 저녁 회의실 디스플레이 펌웨어를 업데이트합니다. 작업 중에는 화면 공유가 되지 않습니다.", "GeneralAffairs", "Notices"),
    DL("Key cabinet for meeting room keys", "Keys for the storage rooms and the 3F lounge are in the key cabinet at reception; sign them out in the book.", "GeneralAffairs", "Office Info"),
    DL("사물함 열쇠 분실 시 처리", "사물함 열쇠를 잃어버리면 총무팀에서 마스터키로 열어 드리며 열쇠 교체 비용 1만 원이 부과됩니다.", "GeneralAffairs", "Office Info"),
    DM("Mailroom hours during the holidays", "The mailroom closes at 15:00 on 24 and 31 December."),
    DF("메일 보안 등급 표시 가이드", "대외비·사내한정 등 메일 보안 등급 레이블을 붙이는 방법입니다.", "Security", "pdf"),
    DL("Archive of all-hands recordings", "Recordings of every all-hands since 2021, with slides.", "Communications", "Archive"),
    DF("Agent desktop setup for customer support (Zendesk)", "How support agents configure Zendesk views, macros and the phone integration.", "Support", "pdf"),
    DM("[CS] 상담 에이전트 신규 교육 일정", "신규 상담 에이전트 교육을 12월 8일부터 2주간 진행합니다."),
    DL("Birthday and work anniversary cakes", "Teams can order a cake for birthdays and work anniversaries from the partner bakery; Facilities pays up to 30,000 KRW.", "GeneralAffairs", "Office Info"),
    DL("휴가철 사무실 냉방 운영 안내", "7월 말~8월 초 휴가철에는 층별로 냉방을 줄여 운영합니다.", "GeneralAffairs", "Notices"),
    DF("Transfer pricing policy (intercompany)", "How services between Contoso Korea and Contoso Japan are priced and invoiced.", "Finance", "pdf"),
    DM("[재무] 연말 해외 송금 요청 마감 안내", "해외 거래처 송금 요청은 12월 20일까지 재무 포털로 접수해 주세요."),
    DL("Stock room: office supplies inventory", "What is kept in the 4F stock room and how to request items that are out of stock.", "GeneralAffairs", "Office Info"),
    DF("우리사주조합 가입 안내", "우리사주조합 가입 자격, 출연금과 인출 제한 기간을 안내합니다.", "HR", "pdf"),
    DM("National pension contribution rate change from January", "The national pension contribution rate rises to 9.5 percent in January; your payslip deduction changes accordingly."),
    DL("Children's Day: bring your kids to the office", "On 2 May children can join a science workshop on 3F. Register your child by 25 April.", "GeneralAffairs", "Events"),
    DF("어린이날 가족 초청 행사 안내", "5월 2일 임직원 자녀를 초청해 과학 체험 행사를 엽니다.", "HR", "pdf"),
    DM("Fire safety training: evacuation drill on 5F", "The building runs an evacuation drill on 5F on Wednesday at 15:00; please follow the wardens."),
    DL("신입사원 OJT 훈련 일정", "12월 입사자 OJT는 첫 2주간 진행되며 부서별 멘토가 배정됩니다.", "HR", "HR Notices"),
    DF("Job description templates for hiring managers", "Templates and examples for engineering, sales and operations job descriptions.", "Recruiting"),
    DM("[채용] 지인 추천 이벤트 연장", "외부 채용 지인 추천 보상 이벤트를 1월 말까지 연장합니다."),
    DL("Photo day: profile photos for the intranet", "A photographer is on 3F on 10 December. Dress as you like; we retouch lightly.", "Communications", "Events"),
    DM("[행사] 창립기념일 행사 복장 안내 (블랙&화이트)", "창립기념일 저녁 행사의 드레스 코드는 블랙&화이트입니다. 부담 없이 참석해 주세요."),
    DL("Car insurance discount for employees", "The partner insurer gives employees 8 percent off personal car insurance.", "Benefits", "Perks"),
    DF("해외 출장자 여행자 보험 가입 안내", "해외 출장 시 여행자 보험은 회사가 일괄 가입합니다. 출장 등록만 하면 자동 가입됩니다.", "Travel", "pdf"),
    DM("Corporate card statement closing date moves to the 20th", "From January the corporate card billing cycle closes on the 20th instead of the last day of the month."),
    DL("법인카드 사용 가능 업종 안내", "유흥업소, 상품권 구매 등 법인카드 사용 제한 업종 목록입니다.", "Finance", "Finance FAQ"),
    DL("Speed limits and rules in the parking garage", "Speed limit 10 km/h on every basement level; no parking in the loading zone.", "GeneralAffairs", "Office Info"),
    DM("[마케팅] 2026 마케팅 예산 집행 가이드", "확정된 마케팅 예산의 집행 절차와 대행사 비용 처리 기준입니다."),
    DF("Budget hotels near the Busan office", "A list of hotels within walking distance of the Busan office under 100,000 KRW a night.", "Travel", "xlsx"),
    DF("Patent watch: competitor filings Q3", "Summary of patents filed by competitors in search and recommendations this quarter.", "Legal", "pdf"),
    DM("[사내 아이디어 공모전] 수상작 발표 및 시상", "올해 아이디어 공모전 수상작 5건을 발표합니다. 시상식은 송년회 때 진행합니다."),
    DL("Wellness challenge: reward points", "Walk 8,000 steps a day in December to earn wellness points you can spend at the company store.", "Benefits", "Perks"),
    DF("개인정보 유출 사고 신고 절차", "개인정보 유출이 의심되면 즉시 보안팀(내선 4000)에 신고하고 관련 자료를 보존하세요.", "Security", "pdf"),
    DM("Building emergency hotline numbers", "Security desk, building management and the on-site nurse: the numbers to call in an emergency."),
    DL("서비스 장애 제보 채널 (#incident)", "서비스 장애를 발견하면 #incident 채널에 제보해 주세요. 당직자가 확인합니다.", "Engineering", "Engineering FAQ"),
    DL("Carpool matching for commuters", "Find colleagues who live near you and share the ride to Pangyo; matched pairs get a reserved parking spot.", "GeneralAffairs", "Office Info"),
    DM("[총무] 지하주차장 차량 5부제 시행 안내", "1월부터 지하주차장에서 차량 5부제를 시행합니다. 끝자리별 요일을 확인해 주세요."),
    DF("Recycling guide: paper, plastic and cans", "How to sort recycling on each floor: paper, plastic, cans, and food waste in the pantry.", "GeneralAffairs", "pdf"),
    DL("사무실 대형 폐기물 배출 요일", "고장 난 의자, 파티션 등 대형 폐기물은 매월 마지막 금요일에 지하 2층으로 내놓아 주세요.", "GeneralAffairs", "Notices"),
    DF("Data retention schedule for customer records", "How long customer, billing and support records are kept by law and by policy.", "Legal", "xlsx"),
    DM("New room booking panels outside every meeting room", "Tap the panel to check in; rooms without a check-in are released after 10 minutes."),
    DF("Test automation strategy 2026", "Where we invest in unit, contract and end-to-end tests next year, and the flaky-test budget.", "QA", "pptx"),
    DL("QA 테스트 계정 발급 요청", "스테이징 테스트 계정은 QA팀에 요청하면 역할별로 발급해 드립니다.", "QA", "QA FAQ"),
    DF("Schema.org markup guide for the marketing site", "Structured data we add to product and FAQ pages for search engines.", "Marketing", "pdf"),
    DM("[DBA] 정기 DB 점검 공지 (일요일 새벽 2시~4시)", "일요일 새벽 정기 점검 동안 분석용 DB 접속이 불가합니다."),
    DF("Python coding style guide", "Formatting with ruff, type hints everywhere and how we name modules.", "Engineering"),
    DL("사내 도서관(라이브러리) 운영 시간", "5층 사내 도서관은 평일 9시~19시 운영하며 한 번에 3권까지 2주 동안 빌릴 수 있습니다.", "GeneralAffairs", "Office Info"),
    DM("JupyterHub upgrade this weekend", "The shared JupyterHub is upgraded on Saturday; save your notebooks by Friday evening."),
    DF("Error budget policy (SRE)", "What happens when a service burns through its monthly error budget: feature freeze and a reliability sprint.", "Engineering", "pdf"),
    DF("모바일 앱 크래시율 월간 리포트", "이번 달 iOS·Android 앱의 크래시 없는 세션 비율과 버전별 추이입니다.", "Mobile", "pptx"),
    DM("Office Wi-Fi upgrade: new access points on 6F to 9F", "New access points are installed next week; expect short disconnections on those floors."),
    DL("네트워크 장애 시 연락처", "사내 네트워크 장애 시 IT 헬프데스크(내선 2000)로 연락하세요.", "IT", "IT FAQ"),
    DF("Access policy for the server room", "Who may enter the server room, how visits are logged and who escorts vendors.", "IT", "pdf"),
    DF("Setup guide: Zoom Rooms in meeting rooms", "How to start a Zoom Rooms meeting from the tablet and share your screen wirelessly.", "GeneralAffairs", "pdf"),
    DM("[IT] 신규 입사자 노트북 세팅 일정", "12월 입사자 노트북은 입사 첫날 오전에 IT 헬프데스크에서 세팅해 드립니다."),
    DL("Quarantine rules for sick employees", "If you have a contagious illness, stay home and tell your manager; return when you are symptom-free for a day.", "HR", "HR FAQ"),
    DF("감염병 격리 및 출근 기준", "법정 감염병 확진 시 격리 기간과 출근 재개 기준을 안내합니다.", "HR", "pdf"),
    DF("Holiday calendar 2026", "Public holidays and company holidays for next year, including the Chuseok and Seollal bridge days.", "HR", "pdf"),
    DM("FW: Team offsite in Gapyeong: agenda and buses", "Agenda for the offsite, bus departure at 08:30 from the main entrance, and what to bring."),
    DL("Printer paper and toner: where to find it", "Paper and toner are in the cabinet next to each printer; the 4F stock room has extra.", "GeneralAffairs", "Office Info"),
]


# --------------------------------------------------------------------------
# Filler posts: other topics. Each template has one or more patterns with
# {slots}; every combination is a distinct text. near=True marks templates
# that deliberately share everyday words with the questions (near misses).

def FT(lang, cat, tags, pats, slots, near=False):
    return dict(lang=lang, cat=cat, tags=tags, pats=pats, slots=slots, near=near)


DAYS = ["today", "tomorrow", "on Thursday", "on Friday", "on Wednesday"]
FLOORS = ["3F", "4F", "6F", "7F", "9F", "11F"]
AREAS = ["Pangyo", "Jeongja", "Seohyeon", "Suji", "Gangnam", "Bundang"]

EN_TEMPLATES = [
    FT("en", "meetup", ["lunch"],
       ["Anyone up for {food} {day}? Thinking {place}, leaving the lobby at {time}.",
        "Lunch crew for {food} {day}? {place}, {time}."],
       {"food": ["bibimbap", "ramen", "pho", "naengmyeon", "tonkatsu", "kimchi stew", "dumplings", "Thai curry"],
        "day": DAYS, "place": ["the place behind Pangyo station", "the Hyundai food court", "the basement spot near Exit 4", "the new Alphadom place"],
        "time": ["11:40", "11:50", "12:00", "12:10"]}),
    FT("en", "meetup", ["after-work"],
       ["{activity} after work {day}? We need {n} more people.",
        "Who's in for {activity} {day} evening? Looking for {n} more."],
       {"activity": ["Bowling", "Screen golf", "Karaoke", "An escape room", "Board games", "Billiards", "Climbing at the gym in Seohyeon"],
        "day": ["on Wednesday", "on Thursday", "on Friday", "next Tuesday"], "n": ["two", "three", "four"]}),
    FT("en", "help", ["lost-found"],
       ["Lost: {item} somewhere around {loc} {when}. Please ping me if you see it!",
        "Has anyone seen {item}? Pretty sure I left it in {loc} {when}."],
       {"item": ["a black AirPods case", "a navy umbrella", "a silver ring", "my reading glasses in a brown case", "a Kindle with a green cover",
                 "a grey wool scarf", "a Montblanc pen", "a Nintendo Switch charger"],
        "loc": ["the 6F pantry", "meeting room Hallasan", "the lobby cafe", "the 9F restroom", "the rooftop garden", "the cafeteria"],
        "when": ["yesterday", "this morning", "on Monday", "last Friday"]}),
    FT("en", "share", ["lost-found"],
       ["Found {item} in {loc}. I left it with reception on 1F.",
        "Someone left {item} in {loc}. It's at the front desk now."],
       {"item": ["a blue water bottle", "a car key with a Hello Kitty keyring", "a pair of wireless earbuds", "a laptop charger (USB-C, 65W)", "a beige cardigan",
                 "a company badge holder (no badge inside)", "a child's drawing book", "a black tote bag"],
        "loc": ["meeting room Baekdu", "the 7F phone booth", "the shuttle stop", "the 3F lounge", "the gym locker area", "the elevator hall on 11F"]}),
    FT("en", "share", ["market"],
       ["Selling my {item}, {cond}, {price}. Pickup at the office.",
        "For sale: {item} ({cond}). {price}, DM me."],
       {"item": ["standing desk converter", "Dyson fan", "air fryer", "Galaxy Tab S8", "mechanical keyboard (brown switches)", "road bike, size M", "Bugaboo stroller",
                 "espresso machine"],
        "cond": ["barely used", "used for a year", "like new", "still in the box", "small scratch on the side"],
        "price": ["100k won", "150k won", "80k won", "250k won", "free to a good home"]}),
    FT("en", "meetup", ["book-club"],
       ["Book club {month}: we're reading {book}. Meeting in {room} on {day}, everyone welcome.",
        "{month} book club pick is {book}. {room}, {day} at lunch."],
       {"month": ["January", "February", "March", "this month"],
        "book": ["Project Hail Mary", "Pachinko", "The Vegetarian", "Designing Data-Intensive Applications", "Klara and the Sun", "Almond", "Thinking, Fast and Slow"],
        "room": ["the 3F lounge", "room Jirisan", "the 9F library corner"], "day": ["the 15th", "the last Thursday", "Friday"]}),
    FT("en", "meetup", ["running"],
       ["Running crew: {dist} along {route} {day} morning. {pace} pace, nobody gets left behind.",
        "{day} morning run: {dist} on {route}. Easy {pace} pace."],
       {"dist": ["5 km", "8 km", "10 km", "half marathon distance"],
        "route": ["the Tancheon trail", "Yuldong Park lake", "the Han river from Jamsil", "the Pangyo valley loop"],
        "day": ["Saturday", "Sunday", "Wednesday"], "pace": ["6:30/km", "6:00/km", "7:00/km"]}),
    FT("en", "meetup", ["hiking"],
       ["Hiking {hike} this {day} at {time}. Beginners welcome.",
        "Anyone joining a hike up {hike} on {day}? We start at {time}."],
       {"hike": ["Bukhansan (meet at Bukhansanseong entrance)", "Gwanaksan (meet at Sadang station exit 4)", "Cheonggyesan (meet at Cheonggyesan station)",
                 "Namhansanseong (meet at the south gate)", "Suraksan (meet at Suraksan station exit 1)"],
        "day": ["Saturday", "Sunday"], "time": ["8:00", "8:30", "9:00"]}),
    FT("en", "question", ["food"],
       ["Recommendations for a team dinner for {n} people near {area}? {req}.",
        "Need a place for {n} near {area} next week. {req}, any ideas?"],
       {"n": ["8", "12", "15", "20"], "area": ["Pangyo station", "Jeongja cafe street", "Gangnam station", "the office"],
        "req": ["Private room if possible", "Vegetarian options needed", "Quiet enough to talk", "Good for a farewell", "Korean BBQ preferred"]}),
    FT("en", "question", ["housing"],
       ["Looking for a {type} near {area}, moving in {month}. Any tips on agents or neighbourhoods?",
        "Anyone know a good {type} near {area}? I need to move by {month}."],
       {"type": ["one-room", "officetel", "two-bedroom apartment", "villa with parking"], "area": AREAS, "month": ["February", "March", "April"]}),
    FT("en", "question", ["expat"],
       ["How do you {task} in Korea as a foreigner?",
        "Expats: what's the easiest way to {task} here?"],
       {"task": ["open a brokerage account", "swap a US driver's licence for a Korean one", "buy a used car", "book KTX tickets without a Korean card",
                 "get a SIM card before the ARC arrives", "find an English-speaking dentist", "file a complaint with the landlord", "send money home cheaply",
                 "get a Korean credit card", "register a bicycle", "find a pediatrician who speaks English", "sign up for Coupang without a Korean phone number"]}),
    FT("en", "help", ["hardware"],
       ["My {device} {problem}. Anyone else seen this?",
        "{device} {problem}, any idea how to fix it?"],
       {"device": ["external monitor", "USB-C dock", "wireless mouse", "Bluetooth keyboard", "headset", "webcam"],
        "problem": ["flickers every few minutes", "disconnects randomly", "stopped charging", "makes a buzzing noise", "isn't detected after sleep"]}),
    FT("en", "help", ["facilities"],
       ["The {machine} on {floor} is {issue} again.",
        "Heads up, {floor} {machine} is {issue}."],
       {"machine": ["coffee machine", "water purifier", "ice maker", "microwave"], "floor": FLOORS,
        "issue": ["out of order", "leaking", "beeping nonstop", "showing error E7"]}),
    FT("en", "help", ["meeting-room"],
       ["Projector in {room} won't pick up HDMI from my laptop. Anyone know the trick?",
        "The screen in {room} {issue}. Is there someone to call?"],
       {"room": ["room Baekdu", "room Hallasan", "room Jirisan", "the big 9F room", "the 3F town hall space", "room Seoraksan"],
        "issue": ["keeps switching inputs", "shows no signal", "has a dead pixel line", "turns off after 5 minutes"]}),
    FT("en", "share", ["events"],
       ["Reminder: {event} is on {date} {loc}. {extra}",
        "{event}: {date}, {loc}. {extra}"],
       {"event": ["the quarterly town hall", "Demo Day", "the product launch party", "the charity bazaar", "the blood donation drive"],
        "date": ["12 December", "Thursday", "next Monday", "the 20th"], "loc": ["in the 3F hall", "in the cafeteria", "on the rooftop"],
        "extra": ["Snacks provided.", "Livestream link is in the calendar invite.", "Bring your badge.", "Please arrive 10 minutes early."]}),
    FT("en", "share", ["kudos"],
       ["Congrats to {name} on {milestone}!",
        "Big congratulations to {name} for {milestone}."],
       {"name": ["Minji", "Daniel", "the payments team", "Soyeon", "Alex", "the Busan office", "Jae-won", "the growth squad"],
        "milestone": ["shipping the new checkout", "their first marathon", "the new baby", "the wedding", "passing the AWS Solutions Architect exam",
                      "winning the internal hackathon"]}),
    FT("en", "share", ["welcome"],
       ["Please welcome {name}, who joins {team} as our new {role}!",
        "Say hi to {name}, our new {role} on {team}."],
       {"name": ["Hyejin", "Tom", "Seungwoo", "Priya", "Yuna", "Marco"],
        "team": ["the search team", "Customer Success", "the design team", "Finance", "the Android team"],
        "role": ["senior engineer", "product designer", "account manager", "data analyst"]}),
    FT("en", "discussion", ["engineering"],
       ["Does anyone have experience with {tech} for {usecase}? We're evaluating options.",
        "Thoughts on {tech} for {usecase}? Pros and cons welcome."],
       {"tech": ["Temporal", "ClickHouse", "Tailwind", "SvelteKit", "gRPC-web", "Kotlin Multiplatform", "DuckDB", "htmx"],
        "usecase": ["long-running workflows", "analytics dashboards", "the admin console", "a mobile SDK", "internal tools"]}),
    FT("en", "discussion", ["tools"],
       ["Which {thing} do you all use? {extra}",
        "Poll: favourite {thing}? {extra}"],
       {"thing": ["terminal", "note-taking app", "diagram tool", "API client", "screenshot tool", "calendar app", "Git GUI"],
        "extra": ["Mine is getting slow.", "Looking to switch.", "Free ones preferred.", "Mac only, sadly.", ""]}),
    FT("en", "question", ["engineering"],
       ["Is there a shared {lint}, or does every team roll its own?",
        "Where's the recommended {lint}?",
        "Does anyone have a good {lint} I can copy?"],
       {"lint": ["ESLint config for TypeScript", "ktlint setup for Kotlin", "SwiftLint rule set for iOS", "ruff config for Python", "golangci-lint config for Go",
                 "Prettier setup for the web apps", "detekt config for Android", "Checkstyle rule set for Java"]}),
    FT("en", "share", ["tech-talk"],
       ["Tech talk on {date}: \"{title}\" by {speaker}. {room}, pizza after.",
        "Next tech talk: \"{title}\" ({speaker}), {date} in {room}."],
       {"date": ["Thursday", "the 12th", "next Wednesday"],
        "title": ["How we cut p99 latency in search", "Intro to property-based testing", "What I learned building an offline-first app",
                  "A tour of our recommendation stack", "Accessibility beyond alt text"],
        "speaker": ["Jiwoo", "Sam", "the payments team"], "room": ["the 3F hall", "room Baekdu"]}),
    FT("en", "question", ["hr"],
       ["How do I update my {info} in Workday?",
        "Where in Workday do I change my {info}?"],
       {"info": ["home address", "emergency contact", "bank account for salary", "marital status", "personal email", "T-shirt size for the company hoodie",
                 "preferred pronouns", "mobile number", "English name spelling on the payslip", "profile photo", "education history", "work anniversary date shown on my profile"]}),
    FT("en", "question", ["hr"],
       ["When does {benefit} get paid out this year?",
        "Does anyone know the date for {benefit}?"],
       {"benefit": ["the holiday bonus", "the Chuseok gift voucher", "the performance bonus", "the Seollal gift set", "the year-end incentive",
                    "the referral bonus for last quarter", "the overtime pay for November", "the wellness points top-up", "the birthday voucher",
                    "the Lunar New Year travel subsidy", "the team-building fund", "the anniversary gift card"]}),
    FT("en", "share", ["marketing"],
       ["Marketing needs {n} volunteers for {thing} on {day}. {perk}",
        "Volunteers wanted: {thing}, {day}. {perk}"],
       {"n": ["three", "five", "ten"], "thing": ["a user interview", "a customer video shoot", "our booth at the Startup Expo", "a photo shoot for the careers page"],
        "day": ["Tuesday", "Friday", "next week"], "perk": ["Free lunch included.", "You get a hoodie.", "Coffee on us.", "Takes about an hour."]}),
    FT("en", "share", ["sales"],
       ["Closed {deal} with {customer} today! Huge thanks to {team}.",
        "We signed {customer} ({deal})! Shoutout to {team}."],
       {"deal": ["a three-year deal", "the enterprise upgrade", "our biggest renewal this year", "a pilot"],
        "customer": ["a large retailer", "a logistics company in Incheon", "a fintech startup", "a game studio", "a hospital group"],
        "team": ["solutions engineering", "the whole APAC sales team", "legal for the fast review"]}),
    FT("en", "question", ["sales"],
       ["Does anyone have a case study for {industry} customers I can share with a prospect?",
        "Looking for a reference deck for {industry}. {extra}"],
       {"industry": ["retail", "logistics", "fintech", "healthcare", "gaming", "education", "manufacturing"],
        "extra": ["Demo is next week.", "Korean version preferred.", "Anything from this year?", "Even a one-pager helps."]}),
    FT("en", "discussion", ["office"],
       ["Is it just me or is {room} {issue}?",
        "{room} is {issue} today. Anyone else?"],
       {"room": ["the 6F open area", "room Baekdu", "the 9F phone booths", "the 3F lounge", "the cafeteria"],
        "issue": ["freezing", "super noisy from the construction", "smelling like paint", "really dark since the blinds broke", "way too warm"]}),
    FT("en", "discussion", ["commute"],
       ["Traffic on {road} was awful this morning, {why}. Anyone know a better route from {area}?",
        "{road} was a parking lot today ({why}). Alternatives from {area}?"],
       {"road": ["the Gyeongbu expressway", "Bundang-Suseo road", "the Yongin-Seoul expressway", "Pangyo-ro"],
        "why": ["an accident near the toll gate", "roadworks again", "snow", "no idea why"], "area": ["Suwon", "Yongin", "Gangnam", "Hanam"]}),
    FT("en", "share", ["weather"],
       ["{weather} warning for this afternoon. {advice}",
        "Heads up: {weather} expected later today. {advice}"],
       {"weather": ["Heavy rain", "Fine dust", "Heat wave", "Snow", "Strong wind"],
        "advice": ["Umbrellas at reception if you need one.", "Masks are in the 1F cabinet.", "Maybe leave a bit early.", "Stay hydrated!",
                   "The rooftop is closed."]}),
    FT("en", "question", ["pets"],
       ["Pet owners: recommendations for a {service} near {area}?",
        "Any good {service} around {area}? {extra}"],
       {"service": ["vet", "groomer", "dog park", "cat sitter", "pet-friendly cafe"], "area": AREAS,
        "extra": ["My usual place closed.", "Ideally open on Sundays.", "English-speaking would be great."]}),
    FT("en", "meetup", ["language"],
       ["Language exchange: I'm a native {l1} speaker looking to practise {l2}. Coffee once a week?",
        "{l2} practice partner wanted! I can help with {l1} in return."],
       {"l1": ["English", "Spanish", "French", "German", "Japanese"], "l2": ["Korean", "Chinese", "Italian", "Portuguese"]}),
    FT("en", "share", ["volunteering"],
       ["Volunteering at {org} on {day}. {n} spots left, sign up in the thread.",
        "{org} needs helpers {day}. We have {n} spots."],
       {"org": ["the animal shelter in Yongin", "the food bank", "a beach clean-up in Incheon", "the community kitchen", "a tree-planting event"],
        "day": ["Saturday", "next Sunday", "the 21st"], "n": ["four", "six", "eight"]}),
    FT("en", "question", ["parents"],
       ["Any parents know good {thing} for {age}-year-olds around {area}?",
        "Looking for {thing} for my {age}-year-old near {area}."],
       {"thing": ["weekend coding classes", "swimming lessons", "piano teachers", "taekwondo gyms", "English picture books"],
        "age": ["6", "8", "10"], "area": ["Pangyo", "Bundang", "Suji", "Gangnam"]}),
    FT("en", "question", ["travel"],
       ["Going to {city} for {reason} next month. Must-eats?",
        "First time in {city} ({reason}). What should I not miss?"],
       {"city": ["Osaka", "Da Nang", "Taipei", "Jeju", "Sapporo", "Busan", "Gyeongju"],
        "reason": ["a long weekend", "a friend's wedding", "holiday", "my parents' anniversary"]}),
    FT("en", "meetup", ["games"],
       ["Anyone playing {game}? Looking for {n} more for a team after work.",
        "{game} squad needs {n} more. We play after 7pm."],
       {"game": ["League of Legends", "Valorant", "Overwatch 2", "Mario Kart", "Splatoon", "Catan", "FIFA"], "n": ["one", "two", "three"]}),
    FT("en", "meetup", ["music"],
       ["Band club needs a {instrument} player for the year-end show. {extra}",
        "Looking for a {instrument} player to jam on {day}."],
       {"instrument": ["bass", "drums", "keyboard", "second guitar", "violin"],
        "extra": ["Practice is Tuesdays.", "Any level is fine.", "We play mostly K-indie."], "day": ["Tuesdays", "Friday evenings"]}),
    FT("en", "share", ["photo"],
       ["The sunset from the {floor} rooftop today was unreal. {extra}",
        "Did anyone else see the {thing} from {floor} this morning?"],
       {"floor": ["11F", "9F", "12F"], "extra": ["Photo in the thread.", "Go look before it's gone!", "Best view in Pangyo."],
        "thing": ["rainbow", "snow on the hills", "hot air balloon", "fog over the valley"]}),
    FT("en", "share", ["donation"],
       ["Collecting {items} for {cause}. Drop box by reception until {date}.",
        "Donation drive: {items} for {cause}, until {date}."],
       {"items": ["winter coats", "children's books", "unused toiletries", "canned food", "old phones"],
        "cause": ["the shelter in Seongnam", "the local children's centre", "the food bank", "the recycling charity"],
        "date": ["Friday", "the 20th", "end of month"]}),
    FT("en", "help", ["tools"],
       ["Is {tool} down for anyone else? Getting {error}.",
        "{tool} gives me {error} since this morning."],
       {"tool": ["Confluence", "Figma", "Notion", "Zeplin", "the design system docs site", "Miro"],
        "error": ["502s", "a blank page", "a login loop", "a 'too many requests' page"]}),
    FT("en", "question", ["engineering"],
       ["What's our convention for {thing} in {lang} services?",
        "Is there a written standard for {thing} ({lang})?"],
       {"thing": ["error codes", "naming feature branches", "API versioning", "timezone handling", "pagination", "request IDs"],
        "lang": ["Kotlin", "Go", "Node", "Python"]}),
    FT("en", "question", ["data"],
       ["Where can I find {dataset}? Need it for {purpose}.",
        "Does anyone know who owns {dataset}? It's for {purpose}."],
       {"dataset": ["last year's NPS survey results", "the churn dashboard", "monthly active users by region", "the pricing experiment raw data",
                    "app store ratings over time"],
        "purpose": ["a board deck", "a planning doc", "my quarterly review", "a customer QBR"]}),
    FT("en", "meetup", ["design"],
       ["Design critique {day} at {time}: bring anything you're working on.",
        "Open design crit {day}, {time}, {room}. All disciplines welcome."],
       {"day": ["Monday", "Wednesday", "Friday"], "time": ["2pm", "4pm", "11am"], "room": ["room Jirisan", "the 6F lounge"]}),
    FT("en", "question", ["finance"],
       ["What's the cutoff for {thing} this month?",
        "Quick check: what's the December deadline for {thing}?"],
       {"thing": ["submitting vendor invoices", "PO approvals", "closing the books", "entering accruals", "mileage claims"]}),
    FT("en", "question", ["facilities"],
       ["Who do I ask to {task}?",
        "Who handles requests to {task}?"],
       {"task": ["fix a wobbly desk", "get a whiteboard for our area", "add plants to our corner", "move a bookshelf", "fix the blinds that are stuck",
                 "get a coat rack", "replace a flickering ceiling light", "get a second trash bin", "clean the carpet after a coffee spill",
                 "put up a team sign", "fix the door that slams", "get a foot rest"]}),
    FT("en", "meetup", ["wellness"],
       ["{activity} at lunch {day} in {room}. {extra}",
        "Lunchtime {activity} on {day}, {room}. {extra}"],
       {"activity": ["Yoga", "Stretching", "Meditation", "Pilates"], "day": ["Tuesday", "Thursday"], "room": ["the 3F hall", "room Baekdu", "the rooftop"],
        "extra": ["Mats provided.", "No experience needed.", "Wear comfy clothes."]}),
    FT("en", "discussion", ["culture"],
       ["Is it weird to {action} at a Korean company dinner?",
        "Honest question: is it rude to {action} at hoesik?"],
       {"action": ["leave before the second round", "not drink at all", "pour my own drink", "sit next to the director", "bring my own non-alcoholic beer",
                   "skip the karaoke part", "go home right after the first toast", "order something else than the set menu", "say no to the boss's refill",
                   "take photos of the food", "pay my share separately", "invite my partner"]}),
    FT("en", "discussion", ["random"],
       ["What did everyone do this weekend? I finally {thing}.",
        "Weekend report: I {thing}. Your turn."],
       {"thing": ["climbed Bukhansan", "finished a 1000-piece puzzle", "learned to make kimchi", "watched all of Squid Game 2", "fixed my bike",
                  "went to the Han river picnic", "tried the new bakery in Jeongja", "assembled an IKEA wardrobe alone"]}),
    FT("en", "question", ["recommendations"],
       ["Best {thing} near the office? {extra}",
        "Can anyone recommend a {thing} close to Pangyo? {extra}"],
       {"thing": ["barber", "nail salon", "dry cleaner", "optometrist", "phone repair shop", "flower shop", "tailor"],
        "extra": ["Walk-in preferred.", "Open late would be great.", "Reasonable prices please."]}),
    FT("en", "question", ["learning"],
       ["Any recommendations for {resource} on {subject}?",
        "Good {resource} for learning {subject}?"],
       {"resource": ["books", "YouTube channels", "podcasts", "newsletters"],
        "subject": ["system design", "Rust", "distributed systems", "product management", "SQL performance", "negotiation"]}),
    FT("en", "question", ["support"],
       ["A customer ({cust}) is asking about {feature}. Who owns that now?",
        "Who can answer a customer question about {feature}? It's for {cust}."],
       {"cust": ["a big retailer", "a university", "a bank", "a game studio"],
        "feature": ["SAML login for their staff", "data export to CSV", "the audit log", "custom domains", "the Japanese UI"]}),
    FT("en", "share", ["product"],
       ["Product sync notes for {week}: {item1}, {item2}.",
        "Recap of {week}'s product sync: {item1} and {item2}."],
       {"week": ["this week", "last week"], "item1": ["onboarding revamp is in beta", "search ranking test ended", "new pricing page shipped"],
        "item2": ["dark mode slipped a sprint", "Android rating is up to 4.6", "churn survey results are in"]}),
    FT("en", "share", ["holiday"],
       ["Happy {holiday}, everyone! {msg}",
        "Wishing you all a great {holiday}. {msg}"],
       {"holiday": ["Chuseok", "Seollal", "holidays", "new year", "Children's Day weekend"],
        "msg": ["Safe travels.", "Don't check Slack.", "See you next week.", "Eat well!"]}),
    FT("en", "meetup", ["toastmasters"],
       ["Toastmasters club meets {day} at {time} in {room}. {extra}",
        "Want to practise public speaking? Toastmasters {day}, {time}."],
       {"day": ["Tuesday", "Thursday"], "time": ["12:30", "18:30"], "room": ["room Jirisan", "the 9F lounge"],
        "extra": ["Guests welcome.", "This week's theme is storytelling.", "Bring a friend."]}),
    FT("en", "share", ["birthday"],
       ["It's {name}'s birthday today, there's cake on {floor}!",
        "Cake on {floor} for {name}'s birthday, come grab a slice."],
       {"name": ["Eunji", "Brian", "Hyunwoo", "Sara", "Junho", "Mina"], "floor": FLOORS}),
    FT("en", "discussion", ["office"],
       ["Could people taking calls in the {floor} open area please use the phone booths? {extra}",
        "Gentle reminder for {floor}: long calls in the booths, please. {extra}"],
       {"floor": FLOORS, "extra": ["Thanks!", "Some of us are recording.", "It echoes a lot.", ""]}),
    FT("en", "question", ["excel"],
       ["Excel question: how do I {task}?",
        "Anyone good with Excel? I need to {task}."],
       {"task": ["freeze the top two rows", "remove duplicates across two sheets", "make a pivot show months in order", "lock only some cells",
                 "split names into two columns", "count unique values with a filter", "make a dropdown from another sheet", "highlight weekends in a date column",
                 "sum by month from daily rows", "stop Excel turning codes into dates", "compare two lists quickly", "print one page wide"]}),
    FT("en", "question", ["templates"],
       ["Where's the latest {template}?",
        "Does anyone have the current {template}? The one I have is from 2022."],
       {"template": ["company slide template", "letterhead", "logo pack", "quote template for sales", "NDA template", "email banner for events"]}),
    FT("en", "meetup", ["conference"],
       ["Anyone going to {conf} next week? Let's meet up.",
        "Who's attending {conf}? Would be nice to grab lunch there."],
       {"conf": ["AWS Summit Seoul", "DEVIEW", "if(kakao)", "PyCon KR", "Google I/O Extended", "JSConf Korea", "KubeCon"]}),
    FT("en", "discussion", ["random"],
       ["Quick poll: {question}",
        "Settle this for our team: {question}"],
       {"question": ["pineapple on pizza?", "tabs or spaces?", "best Korean snack for visitors?", "morning or evening workouts?", "cats or dogs?",
                     "iced americano in winter, yes or no?", "best convenience store ramyeon?", "dark mode or light mode?"]}),
    FT("en", "share", ["kudos"],
       ["Shoutout to {who} for {what}.",
        "Thanks to {who} for {what}!"],
       {"who": ["the facilities team", "IT helpdesk", "our interns", "the cafeteria staff", "the recruiting team"],
        "what": ["fixing the heating so fast", "the amazing year-end decorations", "staying late for the release", "the new snack selection",
                 "organising the family day"]}),
    FT("en", "share", ["pantry"],
       ["Free {thing} in the {floor} pantry, help yourselves!",
        "Leftover {thing} on {floor}, come grab some before it's gone."],
       {"thing": ["pastries from the client meeting", "mandarins from Jeju", "rice cakes", "cookies", "fruit from the event"], "floor": FLOORS}),
    FT("en", "question", ["engineering"],
       ["How do people here handle {thing}? Curious what other teams do.",
        "What's your team's approach to {thing}?"],
       {"thing": ["flaky end-to-end tests", "writing ADRs", "estimating stories", "tech debt sprints", "API deprecations", "demo days", "pairing with juniors",
                  "code ownership in shared libraries"]}),
    FT("en", "help", ["meeting-room"],
       ["Someone booked {room} every {day} for the whole quarter but nobody shows up. Who do I talk to?",
        "{room} is booked all {day} by a recurring meeting that never happens. Can that be released?"],
       {"room": ["room Baekdu", "room Hallasan", "room Jirisan", "the big 9F room", "room Seoraksan"],
        "day": ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]}),
    FT("en", "help", ["it"],
       ["Teams keeps {issue} on my {device}. Anyone found a fix?",
        "My Teams on {device} is {issue} all the time."],
       {"issue": ["logging me out", "showing me as away", "freezing during screen share", "eating the battery", "muting my mic randomly"],
        "device": ["Mac", "iPhone", "Windows laptop", "iPad"]}),
    FT("en", "discussion", ["random"],
       ["Unpopular opinion: {opinion}",
        "Hot take: {opinion}. Discuss."],
       {"opinion": ["meetings should be 25 minutes max", "Friday afternoon deploys are fine with good tests", "the 9F coffee is better than the cafe downstairs",
                    "standups should be async", "we have too many Slack channels", "the cafeteria kimchi jjigae is underrated", "open offices are fine with headphones",
                    "nobody reads long emails"]}),
    FT("en", "question", ["korean-life"],
       ["What's the best app for {thing} in Korea?",
        "Which app do you use for {thing} here?"],
       {"thing": ["food delivery in English", "bus arrival times", "splitting bills", "booking hospitals", "movie tickets", "second-hand stuff",
                  "taxi at night", "parcel tracking"]}),
    FT("en", "share", ["events"],
       ["The {event} photos are up! {where}",
        "Photos from the {event} are in {where}."],
       {"event": ["family day", "hackathon", "summer picnic", "charity run", "Halloween party"],
        "where": ["Check the shared album.", "the Communications site", "the #photos channel"]}),
]

EN_TEMPLATES += [
    FT("en", "question", ["random"],
       ["Anyone know a good {thing} in {area}? {extra}",
        "Recommendations for a {thing} near {area}?"],
       {"thing": ["Korean cooking class", "pottery workshop", "bouldering gym", "co-working space for weekends", "jazz bar", "board game cafe"],
        "area": ["Seongsu", "Hongdae", "Pangyo", "Jamsil", "Itaewon"], "extra": ["Going with friends from abroad.", "Budget isn't a big issue.", "Weekday evenings ideally."]}),
    FT("en", "help", ["it"],
       ["Outlook on my {device} {issue}. Restarting didn't help.",
        "Since yesterday Outlook {issue} on my {device}."],
       {"device": ["Mac", "Windows laptop", "iPhone"],
        "issue": ["won't show the calendar of my team", "keeps asking for my password", "shows meeting times in the wrong time zone", "crashes when I open attachments",
                  "doesn't sync the Sent folder"]}),
    FT("en", "share", ["office"],
       ["FYI the {floor} {thing} is {status} {when}.",
        "Heads up: {thing} on {floor} {status} {when}."],
       {"floor": FLOORS, "thing": ["pantry", "restroom", "phone booth row", "lounge"], "status": ["closed for cleaning", "being renovated", "closed for a private event"],
        "when": ["this afternoon", "tomorrow morning", "until Friday"]}),
    FT("en", "question", ["random"],
       ["Where do you guys buy {thing} around here?",
        "Best place near the office to get {thing}?"],
       {"thing": ["decent bread", "flowers for a farewell", "a birthday cake on short notice", "imported cheese", "good coffee beans", "a last-minute gift",
                  "halal food", "gluten-free snacks"]}),
    FT("en", "discussion", ["engineering"],
       ["{release} is out. Anyone tried it yet? {extra}",
        "Has anyone upgraded a service to {release}? {extra}"],
       {"release": ["Kotlin 2.1", "Go 1.24", "TypeScript 5.7", "Swift 6", "Python 3.13", "Java 21", "Node 22"],
        "extra": ["Curious about compile times.", "Any gotchas?", "Worth it?", "The release notes look nice."]}),
    FT("en", "question", ["hr"],
       ["Is there a {thing} for new joiners? {extra}",
        "New here: do we have a {thing}? {extra}"],
       {"thing": ["Slack channel for social stuff", "list of team acronyms", "guide to the Pangyo area", "welcome lunch", "map of the building"],
        "extra": ["Started on Monday.", "Still finding my way around.", "Thanks in advance!"]}),
]

EN_NEAR = [
    FT("en", "question", ["personal-tech"],
       ["Any tips for migrating {what} from {a}? {extra}",
        "Has anyone done a migration of {what} from {a}? {extra}"],
       {"what": ["my personal photos", "10 years of bookmarks", "my notes", "family videos"],
        "a": ["iCloud to Google Photos", "Evernote to Obsidian", "Chrome to Firefox", "an old NAS to a new one"],
        "extra": ["Weekend project.", "Don't want to lose anything.", ""]}, near=True),
    FT("en", "share", ["market"],
       ["Selling my old {gpu}, {cond}. Great for gaming. {price}.",
        "Used {gpu} for sale ({cond}), {price}."],
       {"gpu": ["RTX 3080", "RTX 3070", "RX 6800", "GTX 1660"], "cond": ["never mined", "with box", "runs cool"], "price": ["350k won", "make me an offer", "400k won"]},
       near=True),
    FT("en", "discussion", ["cafeteria"],
       ["The queue at {place} at 12:05 is insane. {complaint}",
        "Why is the queue at {place} so long {day}? {complaint}"],
       {"place": ["the cafeteria", "the salad bar", "the coffee kiosk"], "day": ["today", "on Mondays"],
        "complaint": ["Let's stagger lunch times.", "Took me 25 minutes.", "Is there a new menu?"]}, near=True),
    FT("en", "help", ["personal-tech"],
       ["My {app} keeps crashing after the update, anyone else?",
        "After updating {app} it crashes on start. {extra}"],
       {"app": ["KakaoTalk on Mac", "Spotify", "Zoom on iPad", "the Naver Map app", "Coupang Eats"],
        "extra": ["Reinstalling didn't help.", "Annoying.", "Personal phone, not work."]}, near=True),
    FT("en", "question", ["personal-tech"],
       ["Which {device} should I buy for my {person}? {extra}",
        "Thinking of getting a {device} for my {person}. Recommendations?"],
       {"device": ["tablet", "smartwatch", "e-reader", "robot vacuum"], "person": ["mom", "kid", "partner", "dad"],
        "extra": ["Budget around 500k.", "Simple to use is key.", ""]}, near=True),
    FT("en", "share", ["pantry"],
       ["Please clear out your stuff from the {floor} fridge by {day}. Everything left gets purged.",
        "Fridge purge on {floor} this {day}! Label anything you want to keep."],
       {"floor": FLOORS, "day": ["Friday", "Thursday evening", "Monday morning"]}, near=True),
    FT("en", "meetup", ["oss"],
       ["Open source meetup at {place} on {day}: talks on {topic}. Who's in?",
        "Going to the open source {topic} meetup {day} at {place}. Join me?"],
       {"place": ["Naver D2 startup factory", "a cafe in Seongsu", "Kakao's Pangyo office"], "day": ["Thursday", "next Tuesday"],
        "topic": ["Rust", "databases", "frontend tooling", "Kubernetes"]}, near=True),
    FT("en", "share", ["random"],
       ["Used ChatGPT to plan my {trip} and it {result}.",
        "Asked ChatGPT for {trip} ideas. It {result}."],
       {"trip": ["Jeju trip", "weekend in Busan", "parents' anniversary dinner", "kid's birthday party"],
        "result": ["sent me to a restaurant that closed in 2019", "was actually pretty good", "planned 14 hours of walking", "invented a museum"]}, near=True),
    FT("en", "share", ["updates"],
       ["Update on {thing}: {status}.",
        "Quick update about {thing}: {status}."],
       {"thing": ["the lunch order", "the softball game", "the charity drive", "the team photo", "the holiday party venue"],
        "status": ["moved to 12:30", "postponed to next week", "we hit our goal", "it's on 11F now"]}, near=True),
    FT("en", "share", ["lost-found"],
       ["Found a {key} on the {floor} stairs. {action}",
        "Whose {key} is this? Found it near {floor} elevators. {action}"],
       {"key": ["car key (Hyundai)", "bike lock key", "house key with a red tag", "locker key no. 214"], "floor": FLOORS,
        "action": ["It's at reception.", "Ping me.", "Left it on the 1F desk."]}, near=True),
    FT("en", "question", ["mail"],
       ["Is there a mailbox near the office? I need to send {what}.",
        "Where's the nearest post office or mailbox? Sending {what} {when}."],
       {"what": ["a letter to Canada", "documents to my landlord", "a birthday card home", "a postcard to my niece", "tax forms to the US", "a wedding invitation"],
        "when": ["today", "this week", "before Friday"]}, near=True),
    FT("en", "question", ["random"],
       ["Any recommendations for a {agent} near {area}? {extra}",
        "Looking for a reliable {agent} around {area}."],
       {"agent": ["real estate agent", "travel agent", "moving company"], "area": AREAS, "extra": ["English-speaking ideally.", "Had a bad experience last time.", ""]},
       near=True),
    FT("en", "share", ["farewell"],
       ["Today is my last day at Contoso after {years}. Thanks for {thing}. Find me on LinkedIn!",
        "After {years} here I'm leaving for {next}. Thanks for {thing}."],
       {"years": ["three years", "five years", "seven years", "ten years"], "thing": ["everything", "all the lunches", "putting up with my puns"],
        "next": ["a new adventure", "grad school", "a startup", "a year of travel"]}, near=True),
    FT("en", "meetup", ["gift"],
       ["Collecting for {person}'s {occasion} gift. Bank transfer to {name} by {day}, any amount.",
        "{occasion} gift for {person}: please transfer to {name} by {day}."],
       {"person": ["Jisoo", "Mark", "our team lead", "Hana"], "occasion": ["wedding", "farewell", "baby shower"], "name": ["Minho", "Yerin"],
        "day": ["Wednesday", "Friday"]}, near=True),
    FT("en", "discussion", ["investing"],
       ["Anyone following {stock}? {comment}",
        "{stock} stock after the earnings call: {comment}"],
       {"stock": ["Samsung Electronics", "SK Hynix", "Nvidia", "Naver", "Kakao"], "comment": ["Wild week.", "Buy the dip or wait?", "Not financial advice, just curious."]},
       near=True),
    FT("en", "question", ["food"],
       ["Lunch options near the office that aren't {food}? {extra}",
        "Need new lunch options. Tired of {food}. {extra}"],
       {"food": ["Korean soup", "kimbap", "salad", "burgers"], "extra": ["Walking distance.", "Under 12k.", ""]}, near=True),
    FT("en", "question", ["personal"],
       ["My parents asked me about {q}. Does anyone understand how national pension works for {group}?",
        "National pension question for {group}: {q}?"],
       {"q": ["paying in extra years", "getting a refund when leaving Korea", "starting payouts early"], "group": ["freelancers", "foreigners", "self-employed people"]},
       near=True),
    FT("en", "question", ["pets"],
       ["Recommendations for a {pet} daycare near {area}? We're travelling over {holiday}.",
        "{pet} daycare or pet sitter near {area} for {holiday}?"],
       {"pet": ["dog", "cat", "puppy"], "area": AREAS, "holiday": ["Chuseok", "Seollal", "Christmas"]}, near=True),
    FT("en", "meetup", ["running"],
       ["Training for {race}. Anyone want to do long runs on weekends?",
        "Who else is training for {race}? Let's do a weekly {run}."],
       {"race": ["the Seoul Marathon", "the JTBC 10K", "a half marathon in April", "my first triathlon"], "run": ["tempo run", "long run", "track session"]}, near=True),
    FT("en", "share", ["hiring"],
       ["We're hiring a {role} for {team}. Know anyone great? Referral bonus applies.",
        "Job opening: {role} on {team}. Please share with your network!"],
       {"role": ["senior frontend engineer", "product designer", "data engineer", "sales manager"], "team": ["the growth team", "payments", "the data platform", "APAC sales"]},
       near=True),
    FT("en", "question", ["personal"],
       ["What do you wear to a Korean {event}? {ctx}",
        "Dress question: what's appropriate for a {event} here? {ctx}"],
       {"event": ["wedding", "funeral", "first birthday party (dol)", "graduation"], "ctx": ["First time going.", "Don't want to stand out.", "Is a suit too much?"]},
       near=True),
    FT("en", "question", ["personal"],
       ["Which {insurance} do you use? Mine went up {pct} this year.",
        "Looking for cheaper {insurance}. {pct} increase at renewal, ugh."],
       {"insurance": ["car insurance", "pet insurance", "travel insurance for personal trips"], "pct": ["15%", "20%", "30%"]}, near=True),
    FT("en", "question", ["personal"],
       ["Any {card} that doesn't charge foreign transaction fees? {extra}",
        "Which {card} works best abroad? {extra}"],
       {"card": ["personal credit card", "debit card", "travel card"], "extra": ["Going to Japan next month.", "Woori keeps charging me.", ""]}, near=True),
    FT("en", "question", ["travel"],
       ["{trip} on a budget: {q}",
        "Budget tips for {trip}? {q}"],
       {"trip": ["Tokyo", "Bali", "Vietnam", "Europe in summer"], "q": ["where to stay?", "is it cheaper to book tours locally?", "cheapest flights from Incheon?"]}, near=True),
    FT("en", "help", ["lost-found"],
       ["Reward for whoever finds my {item}: {reward}!",
        "Lost my {item}. Offering {reward} as a reward."],
       {"item": ["AirPods Pro", "grandfather's watch", "wedding ring", "USB stick with my thesis"], "reward": ["coffee for a week", "a Starbucks card", "lunch on me"]},
       near=True),
    FT("en", "question", ["facilities"],
       ["Who do I report {issue} to? {ctx}",
        "Where do I report {issue}? {ctx}"],
       {"issue": ["a broken stall door in the 8F restroom", "a flickering light in the stairwell", "a leaking pipe in the garage", "a smell of gas near the pantry"],
        "ctx": ["It's been like that for a week.", "Not sure who owns the building stuff.", ""]}, near=True),
    FT("en", "meetup", ["commute"],
       ["Carpool from {area} anyone? I drive in around {time}.",
        "Looking to share a car ride from {area}, arriving {time}."],
       {"area": ["Suwon", "Dongtan", "Yongin", "Hanam", "Gwanggyo"], "time": ["8:30", "9:00", "9:30"]}, near=True),
    FT("en", "question", ["personal"],
       ["How do I dispose of {item} in Seongnam? {extra}",
        "Getting rid of {item}: where do I get the sticker? {extra}"],
       {"item": ["an old sofa", "a broken fridge", "a mattress", "a bookshelf"], "extra": ["Moving next week.", "Never done this in Korea.", ""]}, near=True),
    FT("en", "meetup", ["networking"],
       ["Networking night for {group} on {day}. {extra}",
        "{group} networking event {day}. {extra}"],
       {"group": ["women in tech", "new joiners", "people managers", "expats"], "day": ["Thursday", "next Wednesday"], "extra": ["Drinks provided.", "Sign up in the thread."]},
       near=True),
    FT("en", "question", ["shopping"],
       ["What's the return policy at {store}? {ctx}",
        "Does {store} have a decent return policy? {ctx}"],
       {"store": ["Coupang", "the Hyundai department store", "Daiso", "IKEA Gwangmyeong"], "ctx": ["Bought the wrong size.", "No receipt.", ""]}, near=True),
    FT("en", "help", ["home"],
       ["Setup help: my {device} at home won't {issue}.",
        "Home setup question: {device} won't {issue}. Ideas?"],
       {"device": ["new router", "smart TV", "printer", "mesh Wi-Fi"], "issue": ["connect to the network", "update", "find the other devices"]}, near=True),
    FT("en", "share", ["parcels"],
       ["Package for {name} at reception: {desc}.",
        "{name}, there's a package for you at the front desk ({desc})."],
       {"name": ["Jimin", "Chris", "Seojun", "Emma"], "desc": ["big box", "flowers", "something cold", "envelope from the bank"]}, near=True),
    FT("en", "question", ["access"],
       ["Does anyone have access to {place} on weekends? {ctx}",
        "How do I get access to {place}? {ctx}"],
       {"place": ["the rooftop garden", "the 3F music room", "the building gym after 10pm"], "ctx": ["Want to practise.", "My badge doesn't open it.", ""]}, near=True),
]

KDAYS = ["오늘", "내일", "목요일에", "금요일에", "수요일에"]
KFLOORS = ["3층", "4층", "6층", "7층", "9층", "11층"]
KAREAS = ["판교역", "정자동", "서현역", "수지", "강남역", "분당"]

KO_TEMPLATES = [
    FT("ko", "meetup", ["점심"],
       ["{day} 점심 {food} 드실 분? {place}에서 {time}에 만나요",
        "{day} 점심 {food} 땡기는데 같이 가실 분 계세요? {time} 로비"],
       {"day": KDAYS, "food": ["쌀국수", "돈까스", "마라탕", "냉면", "순대국", "초밥", "부대찌개", "포케"],
        "place": ["로비", "1층 카페 앞", "판교역 4번 출구"], "time": ["11시 40분", "11시 50분", "12시"]}),
    FT("ko", "meetup", ["퇴근후"],
       ["퇴근하고 {activity} 하실 분 계세요? {n}명 더 필요해요",
        "{day} 저녁 {activity} 번개! {n}명만 더 구해요"],
       {"activity": ["볼링", "스크린골프", "노래방", "방탈출", "보드게임", "당구", "클라이밍"], "n": ["두", "세", "네"],
        "day": ["수요일", "목요일", "금요일"]}),
    FT("ko", "help", ["분실물"],
       ["{loc}에서 {item} 잃어버렸어요 ㅠㅠ 보신 분 연락 주세요",
        "혹시 {loc}에서 {item} 보신 분 있나요? {when}에 두고 온 것 같아요"],
       {"loc": ["6층 탕비실", "한라산 회의실", "1층 카페", "9층 화장실", "옥상 정원", "구내식당"],
        "item": ["검정 에어팟 케이스", "남색 우산", "은반지", "안경", "킨들", "회색 머플러", "보조배터리"],
        "when": ["어제", "오늘 아침", "월요일"]}),
    FT("ko", "share", ["분실물"],
       ["{loc}에 {item} 떨어져 있길래 1층 안내데스크에 맡겨뒀어요",
        "{loc}에서 {item} 주웠습니다. 주인분 안내데스크로 가보세요"],
       {"loc": ["백두산 회의실", "7층 폰부스", "셔틀 정류장", "3층 라운지", "11층 엘리베이터 앞"],
        "item": ["파란 텀블러", "무선 이어폰 한쪽", "노트북 충전기", "베이지 가디건", "아이 그림책", "검정 에코백"]}),
    FT("ko", "share", ["중고"],
       ["{item} 팝니다. {cond}, {price}. 사내 직거래 가능해요",
        "{item} 정리해요. {cond}, {price}. 관심 있으시면 DM 주세요"],
       {"item": ["모니터암", "에어프라이어", "갤럭시탭 S8", "기계식 키보드", "유아 카시트", "캠핑 의자 2개", "전기 자전거"],
        "cond": ["거의 새것", "1년 사용", "박스 있음", "생활기스 조금"], "price": ["5만원", "10만원", "15만원", "나눔"]}),
    FT("ko", "meetup", ["동호회"],
       ["{club} 동호회 신규 멤버 모집합니다. {when}에 {what}",
        "{club} 동호회 같이 하실 분 구해요. {when} {what}"],
       {"club": ["등산", "러닝", "보드게임", "사진", "독서", "배드민턴", "풋살"], "when": ["매주 수요일", "격주 토요일", "매달 둘째 주 금요일"],
        "what": ["모여요", "활동합니다", "정기 모임 있어요"]}),
    FT("ko", "question", ["맛집"],
       ["{area} 근처 {purpose} 맛집 추천 부탁드려요",
        "{area} 쪽에 {purpose} 괜찮은 데 아시는 분?"],
       {"area": KAREAS, "purpose": ["팀 회식", "부모님 모시고 갈", "혼밥하기 좋은", "접대용", "생일 저녁", "비건 메뉴 있는"]}),
    FT("ko", "question", ["부동산"],
       ["{area} 쪽 {type} 구하는데 {q}",
        "{type} 알아보는 중인데 {area} 어떤가요? {q}"],
       {"area": ["판교", "정자", "서현", "수지", "광교"], "type": ["원룸", "오피스텔", "투룸", "신축 빌라"],
        "q": ["시세 어느 정도인가요?", "부동산 추천해주실 분?", "출퇴근 괜찮을까요?"]}),
    FT("ko", "discussion", ["교통"],
       ["오늘 {road} 완전 막혀요. {advice}",
        "{road} 지금 사고 났대요. {advice}"],
       {"road": ["경부고속도로", "분당수서로", "용인서울고속도로", "판교로", "신분당선"], "advice": ["일찍 출발하세요", "돌아가세요 ㅠ", "재택 가능하신 분은 참고하세요"]}),
    FT("ko", "help", ["시설"],
       ["{floor} {machine} 또 고장났어요 ㅠ {issue}",
        "{floor} {machine} {issue} 저만 그런가요?"],
       {"floor": KFLOORS, "machine": ["커피머신", "정수기", "제빙기", "전자레인지"], "issue": ["에러 떠요", "물이 새요", "계속 삐삐거려요"]}),
    FT("ko", "help", ["회의실"],
       ["{room} 회의실 TV에 화면 공유가 안 돼요. {q}",
        "{room} 회의실 {issue}. 누구한테 말해야 하나요?"],
       {"room": ["백두산", "한라산", "지리산", "설악산", "9층 대회의실"], "q": ["방법 아시는 분?", "케이블 문제일까요?"],
        "issue": ["스피커가 안 나와요", "마이크가 울려요", "조명이 깜빡여요"]}),
    FT("ko", "share", ["행사"],
       ["{event} {date} {loc}에서 진행합니다. {extra}",
        "[안내] {event} {date} {loc}. {extra}"],
       {"event": ["분기 타운홀", "데모데이", "사내 바자회", "헌혈 캠페인", "가족 초청의 날"], "date": ["12월 12일", "이번 목요일", "다음 주 월요일"],
        "loc": ["3층 홀", "구내식당", "옥상"], "extra": ["간식 준비되어 있어요", "많이 참여해 주세요!", "사원증 지참 부탁드려요"]}),
    FT("ko", "share", ["축하"],
       ["{name}님 {milestone} 축하드려요!",
        "{name}님 {milestone} 진심으로 축하합니다 🎉"],
       {"name": ["민지", "대현", "소연", "재원", "하늘", "지훈", "결제팀", "부산지사"], "milestone": ["결혼", "득남", "첫 마라톤 완주", "승진", "신규 결제 시스템 오픈"]}),
    FT("ko", "share", ["환영"],
       ["{team}에 새로 오신 {name}님을 소개합니다. {bg}",
        "{name}님이 {team}에 합류하셨어요! {bg}"],
       {"team": ["검색팀", "디자인팀", "재무팀", "안드로이드팀", "고객성공팀"], "name": ["혜진", "승우", "유나", "도윤", "서연"],
        "bg": ["많이 반겨주세요", "이전에 스타트업에서 일하셨어요", "고양이 두 마리 집사라고 합니다"]}),
    FT("ko", "discussion", ["개발"],
       ["{tech} 써보신 분 계세요? {usecase}에 쓸까 고민중입니다",
        "{usecase}용으로 {tech} 어떤가요? 장단점 궁금해요"],
       {"tech": ["Temporal", "ClickHouse", "Tailwind", "SvelteKit", "Kotlin Multiplatform", "DuckDB", "htmx"],
        "usecase": ["장시간 워크플로", "분석 대시보드", "어드민 콘솔", "모바일 SDK", "사내 툴"]}),
    FT("ko", "question", ["개발"],
       ["{lang} 프로젝트 {thing} 컨벤션 팀마다 다른가요?",
        "{lang}에서 {thing} 규칙 정리된 문서 있을까요?"],
       {"lang": ["Kotlin", "Go", "TypeScript", "Python", "Swift"], "thing": ["에러 코드", "브랜치 이름", "API 버전", "타임존 처리", "페이지네이션"]}),
    FT("ko", "share", ["세미나"],
       ["{date} 사내 테크톡: '{title}' 관심 있는 분 오세요",
        "이번 테크톡 주제는 '{title}'입니다. {date} 3층 홀"],
       {"date": ["목요일", "12일", "다음 주 수요일"],
        "title": ["검색 p99 지연 줄인 이야기", "속성 기반 테스트 입문", "오프라인 우선 앱 만들기", "추천 시스템 구조 훑어보기", "접근성 제대로 하기"]}),
    FT("ko", "question", ["인사"],
       ["Workday에서 {info} 변경은 어디서 하나요?",
        "{info} 바뀌었는데 Workday 어디서 수정해요?"],
       {"info": ["주소", "비상연락처", "급여 계좌", "휴대폰 번호", "영문 이름 표기", "프로필 사진", "학력 정보", "개인 이메일"]}),
    FT("ko", "share", ["마케팅"],
       ["{thing} 참여하실 분 {n}명 구해요. {perk}",
        "[마케팅] {thing}에 도와주실 분! {perk}"],
       {"thing": ["사용자 인터뷰", "고객 영상 촬영", "스타트업 엑스포 부스", "채용 페이지 사진 촬영"], "n": ["세", "다섯", "열"],
        "perk": ["점심 제공", "굿즈 드려요", "1시간 정도 걸려요"]}),
    FT("ko", "share", ["영업"],
       ["{customer} 계약 체결했습니다! {thanks}",
        "드디어 {customer} 수주 성공했어요. {thanks}"],
       {"customer": ["대형 유통사", "인천 물류사", "핀테크 스타트업", "게임사", "병원 그룹"],
        "thanks": ["도와주신 분들 감사합니다", "솔루션팀 최고", "법무팀 빠른 검토 감사해요"]}),
    FT("ko", "question", ["영업"],
       ["{industry} 고객사 레퍼런스 자료 있을까요? {extra}",
        "{industry} 쪽 도입 사례 장표 가지고 계신 분? {extra}"],
       {"industry": ["유통", "물류", "핀테크", "헬스케어", "게임", "교육", "제조"], "extra": ["다음 주 데모예요", "한글 버전이면 좋겠어요", "한 장짜리라도 괜찮아요"]}),
    FT("ko", "discussion", ["사무실"],
       ["{place} 너무 {issue} 저만 그런가요?",
        "오늘 {place} {issue} ㅠㅠ"],
       {"place": ["6층 오픈 공간", "백두산 회의실", "9층 폰부스", "3층 라운지", "구내식당"], "issue": ["추워요", "시끄러워요", "페인트 냄새 나요", "어두워요", "더워요"]}),
    FT("ko", "meetup", ["운동"],
       ["{activity} 같이 하실 분! {when}",
        "점심시간에 {activity} 하실 분 모여요. {when}"],
       {"activity": ["요가", "스트레칭", "배드민턴", "필라테스", "탁구"], "when": ["화요일 12시 반", "목요일 점심", "매주 금요일"]}),
    FT("ko", "question", ["육아"],
       ["{age}살 아이 {thing} 어디서 하나요? {area} 근처로요",
        "{area} 쪽 {age}살 {thing} 추천 부탁드려요"],
       {"age": ["6", "8", "10"], "thing": ["코딩 학원", "수영 강습", "피아노 학원", "태권도장", "영어 도서관"], "area": ["판교", "분당", "수지"]}),
    FT("ko", "question", ["여행"],
       ["{city} 여행 가는데 {q}",
        "다음 달에 {city} 가요. {q}"],
       {"city": ["오사카", "다낭", "타이베이", "제주", "삿포로", "부산", "경주"], "q": ["맛집 추천해주세요", "숙소 어디가 좋아요?", "꼭 가볼 곳 있나요?"]}),
    FT("ko", "meetup", ["게임"],
       ["{game} 하시는 분 계세요? 퇴근 후 같이 해요",
        "{game} {n}명 구합니다 (저녁 7시 이후)"],
       {"game": ["롤", "발로란트", "오버워치", "마리오카트", "카탄", "피파"], "n": ["한", "두", "세"]}),
    FT("ko", "share", ["기부"],
       ["{items} 기부 받습니다. {where}에 박스 있어요",
        "[나눔] {items} 모아요! {where}까지 가져와 주세요"],
       {"items": ["겨울 외투", "아동 도서", "안 쓰는 세면도구", "통조림", "헌 휴대폰"], "where": ["1층 안내데스크", "3층 라운지", "사회공헌팀 자리"]}),
    FT("ko", "help", ["툴"],
       ["{tool} 저만 안 들어가지나요? {error}",
        "{tool} 아침부터 {error}"],
       {"tool": ["컨플루언스", "피그마", "노션", "미로", "디자인시스템 문서"], "error": ["502 떠요", "하얀 화면만 나와요", "로그인이 계속 반복돼요"]}),
    FT("ko", "question", ["데이터"],
       ["{dataset} 어디서 볼 수 있나요? {purpose} 때문에요",
        "{dataset} 담당자 아시는 분? {purpose}에 필요해요"],
       {"dataset": ["작년 NPS 설문 결과", "이탈률 대시보드", "지역별 MAU", "가격 실험 원본 데이터", "앱 평점 추이"],
        "purpose": ["이사회 자료", "기획 문서", "분기 리뷰", "고객 QBR"]}),
    FT("ko", "question", ["엑셀"],
       ["엑셀에서 {task} 어떻게 하나요?",
        "엑셀 고수님들 {task} 방법 좀 알려주세요"],
       {"task": ["위에 두 줄 고정", "두 시트 중복 제거", "피벗 월 순서 정렬", "일부 셀만 잠그기", "이름 두 칸으로 나누기", "날짜 자동변환 막기",
                 "드롭다운 만들기", "주말만 색칠하기"]}),
    FT("ko", "discussion", ["잡담"],
       ["투표: {q}",
        "우리 팀 논쟁 좀 끝내주세요. {q}"],
       {"q": ["부먹 vs 찍먹?", "탭 vs 스페이스?", "외국 손님한테 줄 과자 뭐가 좋아요?", "아침 운동 vs 저녁 운동?", "민트초코 호 불호?",
               "겨울에도 아아?", "편의점 라면 1위는?", "다크모드 vs 라이트모드?"]}),
    FT("ko", "share", ["감사"],
       ["{who} 덕분에 {what} 무사히 끝났어요. 감사합니다!",
        "{what} 도와주신 {who} 정말 감사해요"],
       {"who": ["총무팀", "IT 헬프데스크", "인턴분들", "식당 직원분들", "채용팀"], "what": ["이사", "송년 행사", "릴리스", "가족의 날", "워크숍"]}),
    FT("ko", "share", ["생일"],
       ["오늘 {name}님 생일이에요 🎂 {floor} 탕비실에 케이크 있어요",
        "{name}님 생일 기념 케이크 {floor}에 있습니다. 한 조각씩 드세요!"],
       {"name": ["은지", "현우", "사라", "준호", "미나", "태윤"], "floor": KFLOORS}),
    FT("ko", "discussion", ["사무실"],
       ["{floor} 오픈 공간에서 긴 통화는 폰부스에서 부탁드려요 🙏",
        "{floor} 분들 통화 소리가 좀 울려요. {extra}"],
       {"floor": KFLOORS, "extra": ["폰부스 이용 부탁드려요", "녹음 중인 분들도 있어서요", "서로 조금씩 배려해요"]}),
    FT("ko", "help", ["탕비실"],
       ["{floor} 탕비실 {snack} 다 떨어졌어요. 채워주실 수 있나요?",
        "{floor} 탕비실에 {snack} 언제 들어와요?"],
       {"floor": KFLOORS, "snack": ["커피 캡슐", "종이컵", "녹차 티백", "두유", "견과류"]}),
    FT("ko", "question", ["회식"],
       ["팀 회식 {n}명 {area} 쪽 장소 추천해주세요. {req}",
        "{area} 근처 {n}명 회식 장소 찾아요. {req}"],
       {"n": ["8", "12", "15", "20"], "area": ["판교역", "정자역", "강남역"], "req": ["룸 있으면 좋겠어요", "고기집이면 좋겠어요", "조용한 곳이요", "송별회예요"]}),
    FT("ko", "meetup", ["스터디"],
       ["{subject} 스터디 모집합니다. {when} {where}",
        "{subject} 같이 공부하실 분 구해요 ({when})"],
       {"subject": ["영어 회화", "일본어", "알고리즘", "시스템 디자인", "SQL"], "when": ["화요일 저녁", "목요일 아침 8시", "토요일 오전"],
        "where": ["9층 라운지", "온라인", "지리산 회의실"]}),
    FT("ko", "share", ["사진"],
       ["오늘 {floor} 옥상 노을 대박이었어요. {extra}",
        "{floor}에서 본 {thing} 보셨어요?"],
       {"floor": ["11층", "12층", "9층"], "extra": ["사진 댓글로 올려요", "퇴근 전에 꼭 보세요", "판교 최고 뷰"], "thing": ["무지개", "눈 덮인 산", "안개"]}),
    FT("ko", "share", ["명절"],
       ["{holiday} 잘 보내세요! {msg}",
        "다들 {holiday} 연휴 즐겁게 보내세요. {msg}"],
       {"holiday": ["추석", "설", "크리스마스", "새해", "어린이날"], "msg": ["안전 운전하세요", "슬랙은 잠시 꺼두세요", "맛있는 거 많이 드세요"]}),
    FT("ko", "question", ["구내식당"],
       ["오늘 {floor} 식당 메뉴 {menu} 맞나요? {extra}",
        "{floor} 식당 {menu} 나오는 날 언제예요? {extra}"],
       {"floor": ["2층", "지하 1층"], "menu": ["제육볶음", "돈까스", "비빔밥", "카레", "김치찌개"], "extra": ["맛있으면 내려가려고요", "너무 좋아해서요 ㅋㅋ"]}),
    FT("ko", "question", ["추천"],
       ["회사 근처 {thing} 추천해주세요. {extra}",
        "판교 근처 괜찮은 {thing} 아시는 분? {extra}"],
       {"thing": ["미용실", "네일샵", "세탁소", "안경원", "휴대폰 수리점", "꽃집", "수선집"], "extra": ["예약 없이 가능한 곳", "늦게까지 하는 곳", "가격 괜찮은 곳"]}),
    FT("ko", "question", ["신입"],
       ["입사한 지 {n} 됐는데 {q}",
        "신입인데요, {q} ({n}차)"],
       {"n": ["일주일", "사흘", "2주"], "q": ["팀 약어 정리된 문서 있나요?", "사내 동호회는 어디서 봐요?", "건물 지도 같은 거 있나요?", "점심은 다들 어디서 드세요?"]}),
    FT("ko", "help", ["IT"],
       ["Teams가 {device}에서 자꾸 {issue}. 해결하신 분?",
        "{device} Teams {issue} 저만 그래요?"],
       {"device": ["맥", "아이폰", "윈도우 노트북", "아이패드"], "issue": ["로그아웃돼요", "자리 비움으로 떠요", "화면 공유 중에 멈춰요", "마이크가 꺼져요"]}),
    FT("ko", "discussion", ["잡담"],
       ["주말에 다들 뭐 하셨어요? 저는 {thing}",
        "주말 근황: {thing} ㅋㅋ"],
       {"thing": ["북한산 다녀왔어요", "퍼즐 천 피스 완성", "김장했어요", "오징어게임 정주행", "자전거 고쳤어요", "한강 피크닉 갔어요", "이케아 옷장 혼자 조립"]}),
]

KO_NEAR = [
    FT("ko", "question", ["잡담"],
       ["{service} 계정 같이 쓰실 분 구해요 ({plan})",
        "{service} {plan} 계정 공유하실 분?"],
       {"service": ["넷플릭스", "유튜브 프리미엄", "디즈니플러스", "티빙"], "plan": ["가족 요금제", "4인 요금제", "1년 결제"]}, near=True),
    FT("ko", "question", ["동호회"],
       ["{club} 동호회 가입 신청 어디서 하나요? {extra}",
        "{club} 동호회 들어가고 싶은데 신청 방법 아시는 분? {extra}"],
       {"club": ["풋살", "사진", "와인", "보드게임"], "extra": ["신입이에요", "중간 가입 되나요?", ""]}, near=True),
    FT("ko", "question", ["개인"],
       ["개인 {card} 해외결제 한도 올려보신 분? {bank} 앱에서 어디 있는지 모르겠어요",
        "{bank} {card} 해외 한도 설정 어디서 해요? 다음 주 여행 가요"],
       {"card": ["신용카드", "체크카드"], "bank": ["신한", "국민", "카카오뱅크", "토스"]}, near=True),
    FT("ko", "help", ["개인"],
       ["{app} 업데이트하고 나서 {issue} 저만 그래요?",
        "{app} 최신 업데이트 후 {issue}"],
       {"app": ["카카오톡", "네이버 지도", "배민", "토스"], "issue": ["알림이 안 와요", "로그인이 풀려요", "자꾸 튕겨요"]}, near=True),
    FT("ko", "question", ["개인"],
       ["{insurance} 갱신하는데 어디가 싸요? {extra}",
        "{insurance} 보험료 {extra} 다들 어디 쓰세요?"],
       {"insurance": ["자동차 보험", "펫 보험", "여행자 보험(개인 여행)"], "extra": ["작년보다 20% 올랐어요", "다이렉트가 나은가요?", "너무 올랐네요"]}, near=True),
    FT("ko", "question", ["개인"],
       ["부모님 국민연금 {q} 아시는 분?",
        "국민연금 {q} 해보신 분 계세요?"],
       {"q": ["추납", "조기 수령", "임의가입", "반환일시금"]}, near=True),
    FT("ko", "meetup", ["출퇴근"],
       ["{area}에서 카풀하실 분 있나요? 출근 {time}",
        "{area} 출발 카풀 구해요. {time} 도착 목표"],
       {"area": ["동탄", "수원", "용인", "하남", "광교"], "time": ["8시 반", "9시", "9시 반"]}, near=True),
    FT("ko", "meetup", ["운동"],
       ["{race} 대비 훈련 같이 하실 분",
        "{race} 준비하시는 분들 주말에 같이 {run} 해요"],
       {"race": ["서울마라톤", "JTBC 10K", "하프마라톤"], "run": ["장거리", "인터벌", "LSD"]}, near=True),
    FT("ko", "share", ["분실물"],
       ["{loc}에서 {key} 주웠어요. {action}",
        "{key} 잃어버리신 분? {loc}에 있었어요. {action}"],
       {"loc": ["5층 계단", "지하 주차장", "엘리베이터 안"], "key": ["자동차 키", "자전거 자물쇠 열쇠", "집 열쇠 꾸러미"], "action": ["안내데스크에 맡겼어요", "연락 주세요"]},
       near=True),
    FT("ko", "discussion", ["맛집"],
       ["{area} 맛집 제보 받습니다 ㅋㅋ {ctx}",
        "{area} 숨은 맛집 제보 좀 해주세요. {ctx}"],
       {"area": ["판교", "정자", "서현"], "ctx": ["점심 메뉴 고갈", "새로 생긴 곳 위주로", "가성비 위주"]}, near=True),
    FT("ko", "question", ["육아"],
       ["어린이날 {thing} 추천해주세요. {extra}",
        "어린이날에 아이랑 {thing} 어디가 좋을까요? {extra}"],
       {"thing": ["선물", "나들이 장소", "공연"], "extra": ["7살 남자아이예요", "사람 너무 많지 않은 곳으로", ""]}, near=True),
    FT("ko", "question", ["개인"],
       ["{event} 갈 때 복장 어떻게 입어요? {ctx}",
        "{event} 처음 가는데 복장 뭐가 무난해요? {ctx}"],
       {"event": ["결혼식", "장례식", "돌잔치", "졸업식"], "ctx": ["정장 필수인가요?", "너무 튀고 싶지 않아요", ""]}, near=True),
    FT("ko", "share", ["사무실"],
       ["{team} 자리 {floor}으로 이동합니다. {note}",
        "[자리 이동] {team} {floor}으로 옮겨요. {note}"],
       {"team": ["검색팀", "디자인팀", "재무팀", "CS팀"], "floor": KFLOORS, "note": ["금요일 오후에 짐 옮겨요", "찾아오실 때 참고하세요"]}, near=True),
    FT("ko", "question", ["여행"],
       ["{trip} 여행 예산 얼마 잡아야 할까요? {extra}",
        "{trip} 3박 4일 예산 어느 정도 드셨어요? {extra}"],
       {"trip": ["도쿄", "다낭", "유럽", "제주"], "extra": ["둘이 가요", "항공 포함", ""]}, near=True),
    FT("ko", "help", ["분실물"],
       ["{item} 찾아주시는 분께 사례하겠습니다 ({reward})",
        "{item} 잃어버렸어요 ㅠ 찾아주시면 {reward} 쏩니다"],
       {"item": ["에어팟 프로", "할아버지 시계", "결혼반지"], "reward": ["커피 일주일", "점심", "스타벅스 카드"]}, near=True),
    FT("ko", "question", ["개인"],
       ["{item} 버리려면 스티커 어디서 사요? {extra}",
        "{item} 폐기 어떻게 하세요? {extra}"],
       {"item": ["헌 소파", "고장 난 냉장고", "매트리스", "책장"], "extra": ["이사 앞두고 있어요", "성남시 기준으로요", ""]}, near=True),
    FT("ko", "share", ["중고"],
       ["{gpu} 중고로 팝니다. {cond}",
        "{gpu} 그래픽카드 정리해요. {cond}"],
       {"gpu": ["RTX 3080", "RTX 3070", "RX 6800"], "cond": ["채굴 안 함", "박스 있음", "35만원"]}, near=True),
    FT("ko", "share", ["잡담"],
       ["챗GPT한테 {thing} 물어봤더니 {result} ㅋㅋ",
        "챗GPT로 {thing} 짜봤는데 {result}"],
       {"thing": ["제주 여행 코스", "아이 생일파티", "식단"], "result": ["없는 식당 알려줌", "생각보다 괜찮네요", "하루에 14시간 걷게 함"]}, near=True),
    FT("ko", "meetup", ["개발"],
       ["오픈소스 {topic} 밋업 같이 가실 분 {day}",
        "{day} 오픈소스 {topic} 모임 있는데 가실 분?"],
       {"topic": ["Rust", "데이터베이스", "프론트엔드 툴링", "쿠버네티스"], "day": ["목요일", "다음 주 화요일"]}, near=True),
    FT("ko", "share", ["채용"],
       ["저희 팀 {role} 채용 중입니다. 주변에 좋은 분 추천 부탁드려요",
        "[채용] {team} {role} 포지션 오픈했어요. 지인 추천 환영"],
       {"role": ["프론트엔드 개발자", "프로덕트 디자이너", "데이터 엔지니어", "영업 매니저"], "team": ["그로스팀", "결제팀", "데이터플랫폼팀"]}, near=True),
    FT("ko", "question", ["개인"],
       ["아이폰에서 갤럭시로 {data} 옮기는 법 아시는 분? {extra}",
        "폰 바꾸는데 {data} 이전 어떻게 하셨어요? {extra}"],
       {"data": ["카톡 대화", "사진", "메모", "연락처"], "extra": ["급해요", "백업이 안 돼요", ""]}, near=True),
    FT("ko", "question", ["시설"],
       ["{issue} 어디에 신고하면 되나요? {ctx}",
        "{issue} 보신 분? 어디 말해야 할지 모르겠어요. {ctx}"],
       {"issue": ["8층 화장실 칸 문 고장", "계단 조명 깜빡임", "주차장 누수"], "ctx": ["일주일째예요", ""]}, near=True),
]


# --------------------------------------------------------------------------
# Wrappers that vary length and tone of filler posts.

EN_OPEN = {"question": ["Hi all! ", "Quick question. ", "Sorry if this was asked before. ", "Hello from the 9F team. "],
           "help": ["Hi all! ", "Help please. ", "Not sure where to ask this. "],
           "share": ["Hey everyone! ", "FYI: "], "meetup": ["Hey everyone! ", "Hi folks! "], "discussion": ["Random thought. ", "Friday thread! "]}
EN_CLOSE = {"question": [" Thanks!", " Thanks in advance.", " Cheers.", " Any help appreciated."],
            "help": [" Thanks!", " Any help appreciated.", " 🙏"],
            "share": [" 🙂", " Thanks all."], "meetup": [" DM me!", " Reply in the thread.", " See you there!"],
            "discussion": [" Curious what you think.", " 😅", " Thoughts?"]}
KO_OPEN = {"question": ["안녕하세요! ", "질문 있어요. ", "다들 고생 많으세요. "], "help": ["안녕하세요. ", "급해요 ㅠ "],
           "share": ["안녕하세요! "], "meetup": ["안녕하세요~ "], "discussion": ["그냥 궁금해서요. "]}
KO_CLOSE = {"question": [" 감사합니다!", " 부탁드려요!", " 답변 주시면 감사하겠습니다."], "help": [" ㅠㅠ", " 🙏", " 감사합니다!"],
            "share": [" 감사합니다!", " 🙂"], "meetup": [" 댓글 주세요!", " DM 주세요", " 많관부 ㅎㅎ"], "discussion": [" ㅋㅋ", " 의견 궁금해요", " 😅"]}

CATEGORIES = ("question", "help", "share", "discussion", "meetup")

STOP = set("""a about above after again against all am an and any anyone are aren as at be because been before being below between both but by can
cannot could did didn do does doesn doing don down during each few for from further get got had has have having he her here hers him his how i if in
into is isn it its itself just let like ll me more most my myself no nor not now of off on once only or other our ours out over own re s same she
should so some such t than that the their them then there these they this those through to too under until up very was we were what when where which
while who whom why will with won would you your yours ve d m o y ok okay also any anything someone something there's it's i'm i've""".split())


def content_words(text):
    return {w for w in re.findall(r"\w+", text.lower()) if len(w) >= 3 and w not in STOP}


# --------------------------------------------------------------------------
# URLs


USERS = ["minji_kim", "junho_lee", "soyeon_park", "daniel_cho", "hyejin_choi", "taeyoon_jung"]


class Urls:
    def __init__(self, rng, taken):
        self.rng = rng
        self.taken = set(taken)

    def _new(self, make):
        for _ in range(1000):
            url = make()
            if url not in self.taken:
                self.taken.add(url)
                return url
        raise SystemExit("could not make a unique url")

    def make(self, doc, site, lst):
        rng = self.rng
        if doc["kind"] == "file":
            name = re.sub(r"[^\w가-힣]+", "-", doc["title"]).strip("-")
            name = urllib.parse.quote(name)
            site = doc.get("site") or site
            if doc.get("user") or rng.random() < 0.15:
                user = doc.get("user") or rng.choice(USERS)
                return self._new(lambda: f"https://contoso-my.sharepoint.com/personal/{user}_contoso_com/Documents/{name}.{doc['ext']}")
            return self._new(lambda: f"https://contoso.sharepoint.com/sites/{site}/Shared%20Documents/{name}.{doc['ext']}")
        if doc["kind"] == "list_item":
            site = doc.get("site") or site
            lst = (doc.get("lst") or lst).replace(" ", "")
            return self._new(lambda: f"https://contoso.sharepoint.com/sites/{site}/Lists/{lst}/DispForm.aspx?ID={rng.randint(100, 1999)}")
        alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
        return self._new(lambda: "https://outlook.office365.com/owa/?ItemID=AAMkA" + "".join(rng.choice(alphabet) for _ in range(40))
                         + "AAA%3D&exvsurl=1&viewmodel=ReadMessageItem")


# --------------------------------------------------------------------------
# Set A (read only for the checks: topic names, urls, concept words)


def load_set_a():
    topics, urls, words = set(), set(), set()
    for name in SET_A:
        data = json.loads((HERE / name).read_text(encoding="utf-8"))
        topics |= {q["topic"] for q in data["questions"]}
        urls |= {d["url"] for d in data["m365"]}
        for group in data["concepts"]:
            words |= set(group)
    return topics, urls, words


# --------------------------------------------------------------------------
# Fillers


def expand(template):
    texts = []
    for pat in template["pats"]:
        names = list(dict.fromkeys(re.findall(r"{(\w+)}", pat)))
        for combo in itertools.product(*(template["slots"][n] for n in names)):
            text = re.sub(r"\s+", " ", pat.format_map(dict(zip(names, combo)))).strip()
            if template["lang"] == "en":
                # Sentences start with a capital even when a slot value does not.
                text = re.sub(r"(^|[.!?] )([a-z])", lambda m: m.group(1) + m.group(2).upper(), text)
            texts.append(text)
    return list(dict.fromkeys(texts))


def quotas(templates, total, near_weight):
    """Split `total` in proportion to the weights (near misses weigh less), but never
    more than 75% of a template's distinct texts; the surplus goes to the others."""
    weights = [near_weight if t["near"] else 1.0 for t in templates]
    caps = [int(0.75 * len(expand(t))) for t in templates]
    if sum(caps) < total:
        raise SystemExit(f"filler templates can give only {sum(caps)} posts, need {total}")
    out = [0] * len(templates)
    free = set(range(len(templates)))
    left = total
    while left > 0:
        wsum = sum(weights[i] for i in free)
        exact = {i: left * weights[i] / wsum for i in free}
        capped = [i for i in free if out[i] + exact[i] >= caps[i]]
        if capped:
            for i in capped:
                left -= caps[i] - out[i]
                out[i] = caps[i]
                free.discard(i)
            continue
        add = {i: int(exact[i]) for i in free}
        order = sorted(free, key=lambda i: (add[i] - exact[i], i))
        for i in order[: left - sum(add.values())]:
            add[i] += 1
        for i in free:
            out[i] += add[i]
        left = 0
    return out


def close(text, closer):
    # A closing sentence after a Korean sentence without final punctuation gets a full stop.
    if HANGUL.match(text[-1]) and HANGUL.match(closer.strip()[0]) and not closer.strip().startswith(("ㅋ", "ㅠ")):
        return text + "." + closer
    return text + closer


def wrap(rng, text, lang, cat):
    opens, closes = (EN_OPEN, EN_CLOSE) if lang == "en" else (KO_OPEN, KO_CLOSE)
    r = rng.random()
    if r < 0.2:
        text = rng.choice(opens[cat]) + text
    elif r < 0.3:
        text = close(rng.choice(opens[cat]) + text, rng.choice(closes[cat]))
    elif r < 0.55:
        text = close(text, rng.choice(closes[cat]))
    return text


def make_fillers(rng, n_fill, taken_texts):
    en = EN_TEMPLATES + EN_NEAR
    ko = KO_TEMPLATES + KO_NEAR
    n_en = round(n_fill * 0.6)
    fillers = []
    seen = set(taken_texts)
    for templates, total in ((en, n_en), (ko, n_fill - n_en)):
        for t, k in zip(templates, quotas(templates, total, 0.22)):
            pool = expand(t)
            if len(pool) < k:
                raise SystemExit(f"filler template has {len(pool)} texts, needs {k}: {t['pats'][0]}")
            for core in rng.sample(pool, k):
                text = wrap(rng, core, t["lang"], t["cat"])
                if text in seen:
                    text = core
                if text in seen:
                    raise SystemExit(f"duplicate filler text: {text}")
                seen.add(text)
                tags = list(t["tags"]) if rng.random() < 0.35 else []
                fillers.append(dict(text=text, tags=tags, category=t["cat"], lang=lang_of(text), near=t["near"], topic=None))
    return fillers


# --------------------------------------------------------------------------
# Build


def pick_queries(rng, q, queries):
    """2-3 keyword queries from the question's needs, interleaved across needs."""
    per_need = [queries[n] for n in q["needs"]]
    ordered = [x for group in itertools.zip_longest(*per_need) for x in group if x is not None]
    en = [x for x in ordered if lang_of(x) == "en"]
    ko = [x for x in ordered if lang_of(x) == "ko"]
    n = rng.choice([2, 3])
    if q["lang"] == "en":
        chosen = en[:n] if len(en) >= 2 else en + ko[: n - len(en)]
    else:
        chosen = ko[:1] + en[:1]
        rest = [x for x in ordered if x not in chosen]
        chosen += rest[: n - 2]
    return chosen


def build(set_a_urls):
    rng = random.Random(SEED)
    urls = Urls(rng, set_a_urls)
    docs, posts, questions = [], [], []
    for t in TOPICS:
        for d in t["docs"]:
            docs.append(dict(d, topic=t["name"], url=urls.make(d, t["site"], t["lst"]), lang=lang_of(d["title"] + " " + d["body"])))
        for p in t["posts"]:
            posts.append(dict(p, topic=t["name"], lang=lang_of(p["text"]), near=False, board=30))
    for d in DISTRACTORS:
        docs.append(dict(d, topic=None, url=urls.make(d, "General", "General"), lang=lang_of(d["title"] + " " + d["body"])))

    for t in TOPICS:
        tdocs = [d for d in docs if d["topic"] == t["name"]]
        tposts = [p for p in posts if p["topic"] == t["name"]]
        for q in t["qs"]:
            q = dict(q, topic=t["name"], lang=lang_of(q["text"]))
            q["doc_refs"] = [d for d in tdocs if set(d["asp"]) & set(q["needs"])]
            q["post_refs"] = [p for p in tposts if set(p["needs"]) & set(q["needs"])]
            q["agentQueries"] = q["aq"] or pick_queries(rng, q, t["queries"])
            q["tags"] = rng.sample(t["tags"], rng.choice([1, min(2, len(t["tags"]))])) if rng.random() < 0.4 else []
            questions.append(q)

    n_topic_posts = len(posts)
    taken = {p["text"] for p in posts} | {q["text"] for q in questions}
    fillers = make_fillers(rng, BOARDS[-1] - n_topic_posts, taken)
    rng.shuffle(fillers)
    # The board of 30 gets its few fillers from the near misses, one per language.
    small = []
    for lang in ("en", "ko"):
        if len(small) < BOARDS[0] - n_topic_posts:
            small.append(next(f for f in fillers if f["near"] and f["lang"] == lang))
    if len(small) != BOARDS[0] - n_topic_posts:
        raise SystemExit(f"board 30 needs {BOARDS[0] - n_topic_posts} fillers")
    rest = [f for f in fillers if all(f is not s for s in small)]
    for f in small:
        f["board"] = BOARDS[0]
    for i, f in enumerate(rest):
        f["board"] = BOARDS[1] if i < BOARDS[1] - BOARDS[0] else BOARDS[2]
    posts += fillers

    # Ids are given after shuffling, so they say nothing about topics or boards.
    rng.shuffle(docs)
    for i, d in enumerate(docs, 1):
        d["id"] = f"bd{i:03d}"
    rng.shuffle(posts)
    for i, p in enumerate(posts, 1):
        p["id"] = f"bp{i:04d}"
    rng.shuffle(questions)
    for i, q in enumerate(questions, 1):
        q["id"] = f"bq{i:03d}"
    return docs, posts, questions


def to_json(docs, posts, questions):
    out = {
        "seed": SEED,
        "concepts": [t["concepts"] for t in TOPICS],
        "m365": [dict(id=d["id"], kind=d["kind"], title=d["title"], url=d["url"], body=d["body"], lang=d["lang"])
                 for d in sorted(docs, key=lambda d: d["id"])],
        "posts": [dict(id=p["id"], text=p["text"], tags=p["tags"], category=p["category"], lang=p["lang"], board=p["board"])
                  for p in sorted(posts, key=lambda p: p["id"])],
        "questions": [dict(id=q["id"], topic=q["topic"], style=q["style"], lang=q["lang"], text=q["text"], tags=q["tags"],
                           category=q["category"], m365=sorted(d["id"] for d in q["doc_refs"]),
                           posts=sorted(p["id"] for p in q["post_refs"]), agentQueries=q["agentQueries"], half="b")
                      for q in sorted(questions, key=lambda q: q["id"])],
    }
    return json.dumps(out, ensure_ascii=False, indent=1) + "\n"


# --------------------------------------------------------------------------
# Checks


def cross(q):
    langs = {p["lang"] for p in q["post_refs"]}
    if q["lang"] == "ko" and langs == {"en"}:
        return "ko->en"
    if q["lang"] == "en" and langs == {"ko"}:
        return "en->ko"
    return None


def no_overlap(q):
    words = content_words(q["text"])
    return all(not (words & content_words(p["text"])) for p in q["post_refs"])


def check(docs, posts, questions, set_a):
    a_topics, a_urls, a_words = set_a
    errors = []

    def need(cond, msg):
        if not cond:
            errors.append(msg)

    # Boards
    for n in BOARDS:
        size = sum(1 for p in posts if p["board"] <= n)
        need(size == n, f"board {n} has {size} posts")
    topic_posts = [p for p in posts if p["topic"]]
    need(all(p["board"] == BOARDS[0] for p in topic_posts), "a topic post is not on the board of 30")
    need(25 <= len(topic_posts) <= 28, f"{len(topic_posts)} topic posts, want 25-28")

    # Uniqueness
    for name, items, key in (("doc id", docs, "id"), ("post id", posts, "id"), ("question id", questions, "id"),
                             ("url", docs, "url"), ("doc title", docs, "title"), ("doc body", docs, "body"),
                             ("post text", posts, "text"), ("question text", questions, "text")):
        dup = [k for k, c in Counter(x[key] for x in items).items() if c > 1]
        need(not dup, f"duplicate {name}: {dup[:3]}")
    need(not ({p["text"] for p in posts} & {q["text"] for q in questions}), "a question text is also a post text")

    # Set A
    need(not ({d["url"] for d in docs} & a_urls), "a url is also in set A")
    need(not ({t["name"] for t in TOPICS} & a_topics), "a topic is also a set A topic")
    words = [w for t in TOPICS for w in t["concepts"]]
    need(not (set(words) & a_words), f"concept words in set A groups: {sorted(set(words) & a_words)}")
    dup = [w for w, c in Counter(words).items() if c > 1]
    need(not dup, f"concept words in two groups: {dup}")
    need(all(w == w.lower() and re.fullmatch(r"\w+", w) for w in words), "a concept word is not a lower-case single token")
    for t in TOPICS:
        for u in TOPICS:
            if t is u:
                continue
            for w in t["concepts"]:
                for v in u["concepts"]:
                    if lang_of(w) == "ko" and v.startswith(w):
                        errors.append(f"Korean concept word {w} ({t['name']}) is a prefix of {v} ({u['name']})")

    # Topics: sizes, labels, aspects
    by_topic_docs = Counter(d["topic"] for d in docs if d["topic"])
    by_topic_posts = Counter(p["topic"] for p in posts if p["topic"])
    by_topic_qs = Counter(q["topic"] for q in questions)
    for t in TOPICS:
        name = t["name"]
        need(3 <= by_topic_docs[name] <= 6, f"{name}: {by_topic_docs[name]} documents")
        need(by_topic_posts[name] <= 2, f"{name}: {by_topic_posts[name]} posts")
        need(2 <= by_topic_qs[name] <= 5, f"{name}: {by_topic_qs[name]} questions")
        needs = {n for q in t["qs"] for n in q["needs"]}
        need(needs <= set(t["queries"]), f"{name}: needs without queries {needs - set(t['queries'])}")
        for d in t["docs"]:
            if d["asp"] == ["near"]:
                continue
            need(set(d["asp"]) <= needs, f"{name}: document aspect not asked about: {d['title']} {d['asp']}")
        for p in t["posts"]:
            need(set(p["needs"]) <= needs, f"{name}: post need not asked about: {p['text'][:40]}")
    for q in questions:
        need(q["style"] in ("terse", "rambling", "mixed", "paraphrase", "plain"), f"{q['id']}: style {q['style']}")
        need(q["category"] in CATEGORIES, f"{q['id']}: category {q['category']}")
        need(q["doc_refs"], f"{q['id']}: no relevant document")
        for d in q["doc_refs"]:
            need(d["topic"] == q["topic"] and "near" not in d["asp"], f"{q['id']}: label {d['id']} is not a document of its topic")
        for p in q["post_refs"]:
            need(p["topic"] == q["topic"], f"{q['id']}: label {p['id']} is not a post of its topic")
            need(p["style"] != q["style"], f"{q['id']}: same style as its post {p['id']} ({p['style']})")
        need(2 <= len(q["agentQueries"]) <= 3, f"{q['id']}: {len(q['agentQueries'])} agent queries")
        if q["lang"] == "ko":
            need({lang_of(x) for x in q["agentQueries"]} == {"en", "ko"}, f"{q['id']}: Korean question without queries in both languages")
        need((q["style"] == "mixed") == (q["lang"] == "ko" and bool(re.search(r"[A-Za-z]", q["text"])) and q["style"] == "mixed"),
             f"{q['id']}: mixed style must be Korean with English terms")
    for d in docs:
        if d["topic"] and "near" not in d["asp"]:
            need(any(d is r for q in questions for r in q["doc_refs"]), f"topic document relevant to nothing: {d['title']}")
    for p in topic_posts:
        need(any(p is r for q in questions for r in q["post_refs"]), f"topic post relevant to nothing: {p['text'][:40]}")
    all_ids = {d["id"] for d in docs} | {p["id"] for p in posts}
    need(all(d["id"] in all_ids for q in questions for d in q["doc_refs"] + q["post_refs"]), "a label points to a missing id")

    # Sizes and mixes
    need(len(questions) >= 100, f"only {len(questions)} questions")
    c = Counter(cross(q) for q in questions)
    need(c["ko->en"] >= 18, f"only {c['ko->en']} Korean questions with only English posts")
    need(c["en->ko"] >= 18, f"only {c['en->ko']} English questions with only Korean posts")
    with_posts = [q for q in questions if q["post_refs"]]
    share = sum(no_overlap(q) for q in with_posts) / len(with_posts)
    need(share >= 0.25, f"only {share:.0%} of questions share no content word with their posts")
    for q in with_posts:
        if q["style"] == "paraphrase":
            need(no_overlap(q), f"{q['id']}: paraphrase shares a content word with its post")
    ko_share = sum(q["lang"] == "ko" for q in questions) / len(questions)
    need(0.4 <= ko_share <= 0.6, f"{ko_share:.0%} Korean questions")
    no_post = sum(not q["post_refs"] for q in questions) / len(questions)
    need(0.08 <= no_post <= 0.22, f"{no_post:.0%} of questions have no related post")
    distractors = [d for d in docs if not d["topic"]]
    need(75 <= len(distractors) <= 90, f"{len(distractors)} distractor documents")
    fillers = [p for p in posts if not p["topic"]]
    need(len(EN_TEMPLATES + EN_NEAR + KO_TEMPLATES + KO_NEAR) >= 120, "fewer than 120 filler templates")
    en_share = sum(p["lang"] == "en" for p in fillers) / len(fillers)
    need(0.55 <= en_share <= 0.65, f"{en_share:.0%} English fillers")
    near_share = sum(p["near"] for p in fillers) / len(fillers)
    need(0.08 <= near_share <= 0.15, f"{near_share:.0%} near-miss fillers")
    need(all(p["category"] in CATEGORIES for p in posts), "bad post category")

    if errors:
        for e in errors:
            print("CHECK FAILED:", e, file=sys.stderr)
        raise SystemExit(1)
    return dict(cross=c, overlap_free=share, no_post=no_post)


# --------------------------------------------------------------------------
# Review


def review(docs, posts, questions, stats):
    fillers = [p for p in posts if not p["topic"]]
    print(f"questions: {len(questions)}  documents: {len(docs)} ({sum(1 for d in docs if d['topic'])} topic, "
          f"{sum(1 for d in docs if d['topic'] and 'near' in d['asp'])} of them near misses; {sum(1 for d in docs if not d['topic'])} distractors)")
    print("documents per kind:", dict(sorted(Counter(d["kind"] for d in docs).items())),
          " per lang:", dict(sorted(Counter(d["lang"] for d in docs).items())))
    print("questions per lang:", dict(sorted(Counter(q["lang"] for q in questions).items())))
    print("questions per style:", dict(sorted(Counter(q["style"] for q in questions).items())))
    print("questions per lang/style:", dict(sorted(Counter(f"{q['lang']}/{q['style']}" for q in questions).items())))
    print("cross-language:", dict(stats["cross"]))
    print(f"questions with no related post: {sum(not q['post_refs'] for q in questions)} ({stats['no_post']:.0%})")
    print(f"questions sharing no content word with their related posts (of those with posts): {stats['overlap_free']:.0%}")
    print("questions with tags:", sum(bool(q["tags"]) for q in questions))
    for n in BOARDS:
        board = [p for p in posts if p["board"] <= n]
        print(f"board {n}: {len(board)} posts, {sum(1 for p in board if p['topic'])} topic posts, "
              f"{sum(1 for p in board if p['near'])} near-miss fillers, lang {dict(sorted(Counter(p['lang'] for p in board).items()))}")
    print("topic posts per lang:", dict(sorted(Counter(p["lang"] for p in posts if p["topic"]).items())),
          " per style:", dict(sorted(Counter(p["style"] for p in posts if p["topic"]).items())))
    print(f"filler templates: {len(EN_TEMPLATES)} + {len(EN_NEAR)} near (en), {len(KO_TEMPLATES)} + {len(KO_NEAR)} near (ko);"
          f" fillers: {len(fillers)}, near misses {sum(p['near'] for p in fillers)}")
    lengths = sorted(len(p["text"]) for p in fillers)
    print(f"filler length (chars): min {lengths[0]}, median {lengths[len(lengths) // 2]}, max {lengths[-1]}")
    print()
    sample = random.Random(SEED).sample(sorted(questions, key=lambda q: q["id"]), 15)
    for q in sample:
        print(f"== {q['id']} [{q['topic']}] {q['lang']}/{q['style']} needs={q['needs']} cross={cross(q)}")
        print(f"   Q: {q['text']}")
        print(f"   agentQueries: {q['agentQueries']}")
        for p in q["post_refs"]:
            print(f"   post {p['id']} ({p['lang']}/{p['style']}): {p['text']}")
        if not q["post_refs"]:
            print("   post: (none)")
        for d in q["doc_refs"]:
            print(f"   doc  {d['id']} {d['kind']}: {d['title']}")
        others = [d for d in docs if d["topic"] == q["topic"] and all(d is not r for r in q["doc_refs"])]
        for d in others:
            print(f"   (not labelled) {d['id']}: {d['title']}{' [near]' if 'near' in d['asp'] else ''}")
        print()


def main(argv):
    set_a = load_set_a()
    docs, posts, questions = build(set_a[1])
    stats = check(docs, posts, questions, set_a)
    text = to_json(docs, posts, questions)
    again = to_json(*build(set_a[1]))
    if text != again:
        raise SystemExit("CHECK FAILED: two builds differ")
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT.relative_to(HERE.parent.parent)}: {len(docs)} documents, {len(posts)} posts, {len(questions)} questions")
    if "--review" in argv:
        review(docs, posts, questions, stats)


if __name__ == "__main__":
    main(sys.argv[1:])

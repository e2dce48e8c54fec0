#!/usr/bin/env python3
"""Deterministic generator of LinkUp's Korean and mixed Korean/English relevance-evaluation set.

Writes korean.json next to this file.  Python 3.11, standard library only.
Every choice (wording alternatives, urls, id order, the topic split) comes from
random.Random(20261126), so re-running produces byte-identical output.

This set has its own topics (none of the 53 topics of generate.py) and is merged
with tuning.json/heldout.json at evaluation time (one index for both sets).  Ids
start with "k" (kd…, kp…, kq…) so they never collide with the English set.

Labels come from generation, exactly as in generate.py: a document is relevant to
a question iff it was written for the question's topic, is not marked near=True
(topic vocabulary, answers none of the topic's questions) and is not named in the
question's exclude=[...] list (the question is narrower than its topic); a post
is relevant iff it was written for the question's topic and is not named in that
exclude list (its need differs).  Exclusions name documents by title prefix and
posts by text prefix.  Distractor documents and unrelated posts are relevant to
no question.  Nothing under src/, tests/it/ or benches/ was read while writing
this file.

Template syntax inside titles, bodies and post texts: "{a|b|c}" is replaced by
one alternative chosen by the seeded generator.
"""

import json
import os
import random
import re
import string
import sys
import urllib.parse

SEED = 20261126
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "korean.json")

# --------------------------------------------------------------------------
# small constructors
# --------------------------------------------------------------------------


def F(title, body, ext=None, site=None, user=None, near=False):
    """A OneDrive/SharePoint file.  user= puts it in that person's OneDrive."""
    return dict(kind="file", title=title, body=body, ext=ext, site=site, user=user, near=near)


def L(title, body, lst=None, site=None, near=False):
    """A SharePoint list item."""
    return dict(kind="list_item", title=title, body=body, lst=lst, site=site, near=near)


def M(title, body, near=False):
    """An Outlook mail."""
    return dict(kind="mail", title=title, body=body, near=near)


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

topic("terraform-lock", "eng", "Platform", "Runbooks",
      "terraform 테라폼 tfstate 상태파일 잠금 lock locked unlock forceunlock dynamodb",
      [
          F("Terraform 상태 잠금(state lock) 해제 가이드",
            "terraform plan/apply 중에 'Error acquiring the state lock'이 나오면 먼저 Lock Info의 Who와 Created를 확인하세요. "
            "실행 중인 CI 작업이 없을 때만 terraform force-unlock <LOCK_ID>를 사용합니다. 잠금 정보는 DynamoDB 테이블 tf-locks에 {저장됩니다|기록됩니다}.",
            ext="pdf"),
          L("[FAQ] CI에서 terraform apply가 멈췄을 때",
            "GitHub Actions 작업이 취소되면 잠금이 남을 수 있습니다. #infra-help 채널에 작업 링크를 남기고 플랫폼팀 확인 후 해제하세요. "
            "다른 사람의 잠금을 임의로 해제하지 마세요."),
          F("Terraform state locking: how it works and how to recover",
            "Every workspace uses the S3 backend with a DynamoDB lock table. If a run is killed, the lock stays; check the lock ID and owner, "
            "then run terraform force-unlock only when no apply is running."),
          M("[Platform] tfstate 백엔드 S3 이전 안내",
            "다음 주 화요일부터 모든 Terraform 상태 파일은 s3://contoso-tfstate 버킷으로 이전됩니다. 각 저장소의 backend 설정을 업데이트해 주세요.",
            near=True),
          F("Terraform 모듈 작성 컨벤션",
            "모듈 디렉터리 구조, 변수 이름 규칙, 버전 태그 방식을 정리했습니다. 상태 파일은 환경별로 분리합니다.", user="jiho_park", near=True),
      ],
      [
          P("terraform apply 하는데 state lock 걸려있다고 계속 실패하네요.. 누가 잡고있는지 어케 알아요?", ["infra"], "help"),
          P("어제 CI 취소했더니 테라폼 락이 안 풀림ㅠ force-unlock 그냥 해도 되나여?", [], "question"),
          P("Terraform says the state is locked by a run from two days ago. Safe to force-unlock?", [], "help"),
      ],
      [
          Q("mixed", "Terraform 상태 잠금 에러 나면 어떻게 해제하나요? Error acquiring the state lock 뜹니다", ["infra"], "help",
            ["Terraform 상태 잠금 해제", "terraform force-unlock state lock error", "테라폼 잠금 DynamoDB"]),
          Q("typo", "테라폼 잠굼 풀어도 되는지 누구한테 물어봐야되요?", [], "question",
            ["테라폼 잠금 해제 문의", "terraform state lock who to ask", "infra-help terraform lock"]),
          Q("english", "How do I release a stuck terraform lock after a cancelled pipeline?", [], "help",
            ["terraform stuck lock cancelled pipeline", "terraform force-unlock", "테라폼 잠금 해제"]),
      ])

topic("kafka-lag", "eng", "DataPlatform", "Runbooks",
      "kafka 카프카 consumer consumers 컨슈머 lag 랙 offset offsets partition partitions 파티션 burrow",
      [
          F("Kafka 컨슈머 랙(consumer lag) 대응 런북",
            "컨슈머 그룹의 lag이 10만 건 이상 5분간 지속되면 알람이 발생합니다. 1) 컨슈머 파드 수와 파티션 수 확인 2) 처리 시간이 긴 메시지 확인 "
            "3) 필요하면 컨슈머 인스턴스를 파티션 수까지 늘리세요. 파티션보다 많은 컨슈머는 {놀게 됩니다|할 일이 없습니다}.", ext="pdf"),
          L("컨슈머 그룹 lag 확인 방법 (Kafka UI / CLI)",
            "Kafka UI에서 Consumer Groups 메뉴를 열고 그룹 이름으로 검색하면 파티션별 오프셋과 lag을 볼 수 있습니다. CLI는 kafka-consumer-groups --describe를 사용하세요."),
          M("Re: order-events consumer falling behind",
            "The lag on order-events came from a single hot partition. We increased partitions from 12 to 24 and scaled the consumers; lag is back to zero. "
            "If your group lags, check for a hot key first."),
          F("Kafka 토픽 생성 요청 양식",
            "새 토픽이 필요하면 이 양식에 토픽 이름, 파티션 수, 보존 기간을 적어 데이터플랫폼팀에 제출하세요.", ext="xlsx", near=True),
      ],
      [
          P("컨슈머 랙이 갑자기 수십만까지 쌓였는데 뭐부터 봐야 할까요? 파티션은 12개에요", ["data"], "help"),
          P("카프카 메시지 처리가 밀려서 지연이 계속 늘어나요ㅠ 컨슈머 늘리면 해결되나요", [], "question"),
          P("Our Kafka consumer group is way behind after the deploy, is there a runbook?", [], "help"),
      ],
      [
          Q("plain", "Kafka consumer lag이 계속 증가할 때 대응 방법이 있나요?", ["data"], "question",
            ["Kafka consumer lag 대응", "kafka consumer lag runbook", "컨슈머 랙 파티션 증설"]),
          Q("slang", "헐 카프카 랙 폭발함 ㅠㅠ 어디서 확인해요", [], "help",
            ["카프카 lag 확인", "kafka consumer group lag check", "Kafka UI consumer groups"]),
      ])

topic("redis-memory", "eng", "Platform", "Runbooks",
      "redis 레디스 elasticache maxmemory oom 캐시 cache ttl",
      [
          L("Redis 메모리 사용률 90% 초과 시 조치",
            "ElastiCache 대시보드에서 used_memory와 evicted_keys를 확인하세요. TTL 없는 키가 많으면 메모리가 계속 늘어납니다. "
            "maxmemory-policy는 기본 allkeys-lru입니다. 노드 증설은 플랫폼팀에 {요청하세요|티켓으로 요청합니다}."),
          F("캐시 키 TTL 설정 가이드",
            "모든 Redis 키에는 TTL을 설정해야 합니다. 세션은 30분, API 응답 캐시는 5분을 권장합니다. redis-cli --bigkeys로 큰 키를 찾을 수 있습니다."),
          M("[공지] 운영 Redis 클러스터 노드 타입 변경 (r6g.large → r6g.xlarge)",
            "이번 주 토요일 02:00에 운영 Redis 노드 타입을 변경합니다. 약 1분간 연결이 끊길 수 있습니다.", near=True),
          F("Redis memory troubleshooting",
            "Check used_memory, the fragmentation ratio and evicted keys. Keys without a TTL are the usual cause of steady growth; use --bigkeys and MEMORY USAGE to find them."),
      ],
      [
          P("레디스 메모리가 계속 차오르는데 TTL 안 걸린 키 찾는 법 아시는분?", [], "question"),
          P("ElastiCache used memory 95% 찍었어요.. 노드 늘리는 건 누구한테 요청하죠", ["infra"], "help"),
      ],
      [
          Q("casual", "Redis 메모리 꽉 차면 어떻게 해요? 캐시 키가 안 지워지는 것 같아요", ["infra"], "help",
            ["Redis 메모리 사용률 조치", "redis memory full ttl keys", "ElastiCache maxmemory policy"]),
          Q("keyword", "redis 메모리 90%", [], None,
            ["redis 메모리 사용률", "redis memory usage alert", "elasticache used_memory"]),
          Q("english", "redis keeps growing in memory, how do I find which keys have no TTL?", [], "question",
            ["redis keys without ttl", "redis bigkeys memory usage", "레디스 TTL 설정"],
            exclude=["ElastiCache used memory"]),
      ])

topic("api-ratelimit", "eng", "Platform", "FAQ",
      "ratelimit ratelimits 429 throttling throttled 쓰로틀링 스로틀링 kong 호출량",
      [
          F("API 게이트웨이 rate limit 정책",
            "외부 API는 클라이언트 키당 초당 100건, 내부 서비스 간 호출은 초당 1,000건으로 제한됩니다. 한도를 넘으면 HTTP 429 Too Many Requests와 "
            "Retry-After 헤더를 {반환합니다|돌려줍니다}."),
          L("rate limit 상향 요청 방법",
            "Kong 게이트웨이의 한도 상향은 Jira PLAT 프로젝트에 '게이트웨이 한도 변경' 티켓으로 요청하세요. 예상 트래픽과 기간을 적어 주세요. 영업일 2일 내 처리합니다."),
          M("[Platform] New rate limits on the public API from 1 March",
            "Partner keys move to 100 requests per second. Clients that exceed it get 429 responses; please add exponential backoff and respect Retry-After."),
          F("Kong 플러그인 개발 가이드",
            "커스텀 Kong 플러그인을 Lua로 작성하고 배포하는 방법을 설명합니다.", near=True),
      ],
      [
          P("파트너사에서 429 에러 계속 받는다고 연락옴.. 한도 올릴 수 있나요?", ["api"], "help"),
          P("게이트웨이 호출 제한 기준이 키별인가요 IP별인가요?", [], "question"),
          P("Getting 429s from our own gateway during the load test, who can raise the quota?", [], "help"),
      ],
      [
          Q("mixed", "API gateway rate limit 상향 신청은 어디서 하나요? 이벤트 때 트래픽 두 배 예상돼요", ["api"], "question",
            ["API 게이트웨이 rate limit 상향", "gateway rate limit increase request", "Kong 한도 변경 티켓"],
            exclude=["게이트웨이 호출 제한 기준"]),
          Q("spacing", "429에러 뜨는데 스로틀링기준이 뭐예요?", [], "question",
            ["429 에러 쓰로틀링 기준", "API rate limit policy 429", "Too Many Requests Retry-After"],
            exclude=["파트너사에서 429", "Getting 429s", "rate limit 상향 요청"]),
      ])

topic("alert-rules", "eng", "SRE", "Runbooks",
      "알람 alert alerts alertmanager prometheus 프로메테우스 임계치 threshold thresholds",
      [
          F("서비스 모니터링 알람 설정 가이드",
            "Prometheus 알람 규칙은 monitoring-rules 저장소에 PR로 추가합니다. 임계치와 for 기간을 정하고 team, severity 라벨을 반드시 넣으세요. "
            "severity=critical만 온콜에게 전화가 갑니다.", ext="pdf"),
          L("Alertmanager 라우팅: 우리 팀 슬랙 채널로 알람 받기",
            "alertmanager.yml의 routes에 team 라벨로 매칭되는 receiver를 추가하세요. 채널 이름은 #alert-<팀명> 형식입니다."),
          F("Writing good alert rules",
            "Alert on symptoms (error rate, latency) rather than causes, use a for: duration to avoid flapping and link a runbook in the annotation."),
          M("[SRE] Grafana 10 업그레이드 일정",
            "다음 주 수요일 Grafana를 10.4로 업그레이드합니다. 대시보드는 자동으로 이전됩니다.", near=True),
      ],
      [
          P("우리 팀 서비스 에러율 올라가면 슬랙으로 알람 오게 하고 싶은데 어디서 설정해요?", ["sre"], "question"),
          P("프로메테우스 룰 추가했는데 알림이 안 와요 ㅠ 라우팅 문제일까요", [], "help"),
          P("How do I get Prometheus alerts for my service into our team's Slack channel?", [], "question"),
      ],
      [
          Q("plain", "새 서비스에 모니터링 알람을 추가하려면 어떻게 해야 하나요?", ["sre"], "question",
            ["모니터링 알람 추가", "prometheus alert rule new service", "alertmanager routing team channel"]),
          Q("typo", "알람 임꼐치 설정 어디서함? 레이턴시 기준으로 걸고싶어여", [], "question",
            ["알람 임계치 설정", "alert threshold latency prometheus", "alert rules guide"],
            exclude=["프로메테우스 룰 추가했는데", "Alertmanager 라우팅"]),
          Q("english", "where do I configure alert thresholds for my service?", [], "question",
            ["alert threshold configuration", "prometheus alert rules repository", "모니터링 알람 설정"],
            exclude=["프로메테우스 룰 추가했는데", "Alertmanager 라우팅"]),
      ])

topic("server-access", "eng", "Security", "FAQ",
      "bastion 배스천 jumphost 점프서버 teleport 텔레포트 tsh 서버접근",
      [
          L("운영 서버 접근 권한 신청 절차",
            "운영 서버 접속은 Teleport를 통해서만 가능합니다. IT 포털에서 '서버 접근 권한'을 선택하고 대상 서버 그룹, 기간(최대 30일), 사유를 입력하세요. "
            "팀장 승인 후 보안팀이 {부여합니다|권한을 열어 드립니다}."),
          F("Teleport(tsh) 접속 가이드",
            "tsh login --proxy=teleport.contoso.io 후 tsh ls로 권한 있는 서버 목록을 확인하고 tsh ssh로 접속합니다. 모든 세션은 녹화됩니다."),
          M("[보안] 기존 배스천 호스트 종료 안내",
            "11월 30일부로 bastion.contoso.io는 종료되고 모든 서버 접속은 Teleport로 전환됩니다. 기존 SSH 키 등록은 더 이상 필요 없습니다."),
          F("Production server access policy",
            "Access to production hosts is granted per server group for at most 30 days, approved by your team lead and the security team, and always through Teleport."),
      ],
      [
          P("운영 서버 로그 직접 봐야 하는데 접속 권한은 어떻게 받나요?", [], "question"),
          P("tsh ls 하면 서버가 하나도 안 보여요.. 권한 만료된건가", ["infra"], "help"),
          P("How do I get SSH access to the prod boxes? Is the old bastion still a thing?", [], "question"),
      ],
      [
          Q("casual", "prod 서버 접속 권한 신청 어케 해요?", ["infra"], "question",
            ["운영 서버 접근 권한 신청", "production server access request Teleport", "서버 접속 권한 IT 포털"]),
          Q("chatty", "이번에 결제팀으로 옮겼는데요 ㅎㅎ 아직 적응중이라.. 혹시 운영 서버 들어가려면 점프 서버 계정 따로 만들어야 하나요?", [], "help",
            ["점프 서버 계정", "bastion teleport access", "운영 서버 접속 방법"],
            exclude=["tsh ls 하면"]),
      ])

topic("dw-query-cost", "eng", "DataPlatform", "FAQ",
      "bigquery 빅쿼리 snowflake warehouse 웨어하우스 dw 쿼리 query queries 슬롯 slots",
      [
          F("BigQuery 쿼리 비용 줄이는 방법",
            "SELECT * 대신 필요한 컬럼만 조회하고, 파티션 컬럼(event_date)으로 반드시 필터하세요. 실행 전 예상 스캔 용량을 확인하세요. "
            "1TB당 약 6.25달러가 {부과됩니다|청구됩니다}.", ext="pdf"),
          L("팀별 데이터 웨어하우스 사용량 대시보드",
            "Looker Studio의 DW 사용량 대시보드에서 팀·사용자별 월간 쿼리 비용과 비용 상위 쿼리를 볼 수 있습니다."),
          M("[데이터플랫폼] 사용자별 일일 쿼리 한도 도입",
            "다음 달부터 개인 계정의 BigQuery 일일 스캔 한도가 2TB로 설정됩니다. 한도를 넘으면 쿼리가 거부되며, 상향은 데이터플랫폼팀에 요청하세요."),
          F("BigQuery cost guidelines",
            "Partition filters are mandatory on event tables; avoid SELECT *; use a dry run to see the bytes processed. Monthly warehouse spend per team is reviewed by the data platform team."),
          F("Snowflake 도입 검토 결과",
            "BigQuery와 Snowflake의 기능과 가격을 비교한 검토 문서입니다. 결론: 당분간 BigQuery를 유지합니다.", ext="pptx", near=True),
      ],
      [
          P("빅쿼리 이번 달 비용이 너무 많이 나왔다고 연락 받았는데 어떤 쿼리가 문제인지 어디서 봐요?", ["data"], "question"),
          P("DW 쿼리 돌렸더니 일일 한도 초과래요ㅠ 한도 늘려주나요?", [], "help"),
          P("Got a mail saying my BigQuery usage was huge last month, where can I see which queries cost the most?", [], "question"),
      ],
      [
          Q("plain", "BigQuery 쿼리 비용을 줄이려면 어떻게 해야 하나요?", ["data"], "question",
            ["BigQuery 쿼리 비용 절감", "bigquery cost partition filter", "데이터 웨어하우스 비용 가이드"],
            exclude=["DW 쿼리 돌렸더니", "[데이터플랫폼] 사용자별"]),
          Q("keyword", "dw 쿼리비용 팀별", [], None,
            ["DW 쿼리 비용 팀별", "data warehouse usage dashboard by team", "bigquery cost by team"],
            exclude=["DW 쿼리 돌렸더니", "[데이터플랫폼] 사용자별"]),
          Q("english", "Is there a daily scan quota on BigQuery and how do I get it raised?", [], "question",
            ["bigquery daily scan quota", "bigquery quota increase data platform", "빅쿼리 일일 한도"],
            exclude=["빅쿼리 이번 달", "Got a mail saying", "BigQuery 쿼리 비용 줄이는", "팀별 데이터 웨어하우스", "BigQuery cost guidelines"]),
      ])

topic("pii-masking", "eng", "Security", "FAQ",
      "개인정보 pii 마스킹 masking masked 가명처리 비식별 pseudonymization anonymization",
      [
          F("개인정보 마스킹 기준 (로그/화면/다운로드)",
            "이름은 가운데 글자, 휴대폰 번호는 가운데 4자리, 이메일은 @ 앞 3자리 이후를 마스킹합니다. 로그에는 주민등록번호와 카드번호를 {절대|어떤 경우에도} 남기지 마세요.",
            ext="pdf"),
          L("분석용 데이터 가명처리 요청",
            "분석 목적으로 고객 데이터를 써야 하면 개인정보보호팀에 가명처리를 요청하세요. 처리된 테이블은 pii_masked 데이터셋에 생성됩니다."),
          M("Reminder: no PII in application logs",
            "Phone numbers, emails and resident registration numbers must be masked before logging. The log scanner reports violations to the security team every night."),
          F("개인정보 처리방침 개정 안내 (고객용)",
            "서비스 이용약관 및 개인정보 처리방침이 12월 1일자로 개정됩니다. 고객 공지 문안을 첨부합니다.", near=True),
      ],
      [
          P("로그에 고객 전화번호 찍히는데 마스킹 규칙 정해진거 있어요?", ["security"], "question"),
          P("분석하려고 고객 테이블 받고 싶은데 개인정보 비식별 처리는 누가 해주나요", ["data"], "question"),
          P("What's our masking rule for emails and phone numbers in logs?", [], "question"),
      ],
      [
          Q("mixed", "로그에 PII 남기면 안 된다는데 마스킹 기준이 어떻게 되나요?", ["security"], "question",
            ["개인정보 마스킹 기준", "PII masking logs policy", "로그 개인정보 마스킹"],
            exclude=["분석하려고", "분석용 데이터 가명처리"]),
          Q("spacing", "개인정보마스킹 처리된 데이터 어디서받아요", [], "question",
            ["가명처리 데이터 요청", "pseudonymized data request analysis", "pii_masked dataset"],
            exclude=["로그에 고객 전화번호", "What's our masking rule", "Reminder: no PII", "개인정보 마스킹 기준"]),
          Q("english", "Who can give me an anonymised copy of customer data for analysis?", ["data"], "question",
            ["anonymised customer data analysis", "pseudonymization request privacy team", "가명처리 요청"],
            exclude=["로그에 고객 전화번호", "What's our masking rule", "Reminder: no PII", "개인정보 마스킹 기준"]),
      ])

topic("ab-test", "eng", "DataPlatform", "FAQ",
      "ab 실험 experiment experiments variant variants 유의성 significance pvalue hackle",
      [
          F("A/B 테스트 결과 해석 가이드",
            "실험이 끝나면 Hackle 리포트에서 주요 지표의 신뢰구간과 p-value를 확인하세요. 표본 수가 부족하면 유의성이 없다고 판단하고 기간을 늘립니다. "
            "중간에 결과를 보고 {조기 종료하지 마세요|실험을 일찍 끝내지 마세요}.", ext="pdf"),
          L("실험 설계 리뷰 요청",
            "새 A/B 테스트는 시작 전에 데이터분석팀의 설계 리뷰를 받아야 합니다. 가설, 주요 지표, 최소 표본 수를 적어 주세요.", near=True),
          F("A/B testing at Contoso: from hypothesis to decision",
            "Define one primary metric, compute the sample size up front, run at least one full week and read the result only at the end. "
            "A non-significant result is still a result.", ext="pptx"),
          M("[분석] 3분기 실험 결과 요약",
            "3분기에 진행한 A/B 테스트 14건 중 4건이 유의미한 개선을 보였습니다. 상세 리포트는 첨부를 확인하세요.", near=True),
      ],
      [
          P("A/B 테스트 돌렸는데 전환율 차이가 0.3%p면 의미 있는 건가요?", ["product"], "question"),
          P("실험 결과 p값 0.08 나왔는데 이거 그냥 B안으로 가도 될까요 ㅋㅋ", [], "discussion"),
          P("Our experiment shows +2% but the dashboard says not significant - how do we read that?", [], "question"),
      ],
      [
          Q("casual", "AB테스트 결과 유의미한지 어떻게 판단해요?", ["product"], "question",
            ["A/B 테스트 결과 해석", "ab test statistical significance", "실험 유의성 p-value"]),
          Q("chatty", "PM 3개월차인데 아직 모르는게 많네요ㅎ 실험 결과 리포트 보는 법 정리된 문서 있을까요? 신뢰구간 이런게 헷갈려요", [], "question",
            ["실험 결과 리포트 보는 법", "experiment report confidence interval", "Hackle 리포트 가이드"]),
          Q("english", "Is there a guide to reading A/B test results before we decide to launch?", [], "question",
            ["A/B test results guide", "experiment significance decision", "A/B 테스트 결과 해석"]),
      ])

topic("ssl-cert", "eng", "Platform", "Runbooks",
      "ssl tls https 인증서 cert certs letsencrypt acm",
      [
          L("SSL 인증서 만료 알림을 받았을 때",
            "*.contoso.io 와일드카드 인증서는 플랫폼팀이 매년 갱신합니다. 개별 도메인 인증서는 ACM에서 자동 갱신되며, 만료 30일 전 알림이 오면 "
            "DNS 검증 레코드가 {남아 있는지|삭제되지 않았는지} 확인하세요."),
          F("TLS 인증서 발급 요청 가이드",
            "새 도메인에 인증서가 필요하면 IT 포털에서 '인증서 발급'을 선택하세요. 외부 고객용은 ACM, 내부용은 사내 CA로 발급합니다."),
          M("Certificate for api.contoso.io expires in 14 days",
            "Automated notice: the TLS certificate for api.contoso.io expires on 12 December. Renewal is pending DNS validation; the platform team renews wildcard certificates."),
          F("HTTPS 리다이렉트 설정 (Nginx)",
            "HTTP 요청을 HTTPS로 리다이렉트하는 Nginx 설정 예시와 HSTS 헤더 권장값입니다.", near=True),
      ],
      [
          P("인증서 만료 14일 남았다는 메일 왔는데 제가 뭘 해야 되나요?", [], "question"),
          P("새로 만든 서브도메인에 https 붙이려면 인증서 어디서 받아요", ["infra"], "question"),
      ],
      [
          Q("typo", "ssl 인즘서 갱신 누가 하나요? 만료 알람 왔어요", [], "question",
            ["SSL 인증서 갱신", "TLS certificate renewal expiry", "ACM 인증서 자동 갱신"],
            exclude=["새로 만든 서브도메인", "TLS 인증서 발급 요청"]),
          Q("mixed", "신규 도메인용 TLS cert 발급 요청은 어디로 해요?", ["infra"], "question",
            ["TLS 인증서 발급 요청", "certificate issuance new domain", "ACM certificate request"],
            exclude=["인증서 만료 14일", "Certificate for api.contoso.io", "SSL 인증서 만료 알림"]),
          Q("english", "Who renews the wildcard certificate for contoso.io?", [], "question",
            ["wildcard certificate renewal", "tls certificate expiry platform team", "인증서 갱신"],
            exclude=["새로 만든 서브도메인", "TLS 인증서 발급 요청"]),
      ])

topic("dns-record", "eng", "Platform", "FAQ",
      "dns 도메인 domain subdomain 서브도메인 cname route53 레코드 record records",
      [
          L("DNS 레코드 추가/변경 요청",
            "contoso.io 하위 도메인의 A/CNAME 레코드는 infra-dns 저장소에 PR로 요청합니다. 머지되면 Route53에 자동 반영되며 TTL은 300초입니다. "
            "{변경이 보이지 않으면|반영이 늦으면} 이전 TTL이 끝날 때까지 기다리세요."),
          F("도메인 네이밍 규칙",
            "서비스 도메인은 <서비스>.<환경>.contoso.io 형식을 따릅니다. 예: payment.stg.contoso.io. 외부 공개 도메인은 보안팀 검토가 필요합니다."),
          F("DNS changes via infra-dns",
            "Add or change records with a pull request to infra-dns; Route53 is updated on merge and the TTL is 300 seconds. Public records need a security review."),
      ],
      [
          P("스테이징용 서브도메인 하나 만들고 싶은데 요청 어디에 하죠?", ["infra"], "question"),
          P("CNAME 바꿨는데 반영이 안 되는 것 같아요 TTL 때문인가요", [], "help"),
      ],
      [
          Q("plain", "새 서비스 도메인을 등록하려면 어떤 절차가 필요한가요?", [], "question",
            ["서비스 도메인 등록 절차", "DNS record request infra-dns", "subdomain naming convention"],
            exclude=["CNAME 바꿨는데"]),
          Q("slang", "dns 레코드 추가 급해요ㅠ PR로 하는거 맞나요?", ["infra"], "help",
            ["DNS 레코드 추가 PR", "infra-dns pull request route53", "DNS 변경 요청"],
            exclude=["CNAME 바꿨는데"]),
          Q("english", "how long until a DNS change in infra-dns goes live?", [], "question",
            ["dns change propagation ttl", "infra-dns route53 merge", "DNS 반영 시간"],
            exclude=["스테이징용 서브도메인", "도메인 네이밍 규칙"]),
      ])

topic("load-test", "eng", "SRE", "Runbooks",
      "부하 부하테스트 loadtest k6 ngrinder stress 성능테스트",
      [
          F("부하 테스트 수행 가이드",
            "부하 테스트는 perf 환경에서 k6로 수행합니다. 운영 환경 대상 테스트는 금지입니다. 외부 API(결제사 등)는 mock 서버로 {대체하세요|바꿔서 호출하세요}.",
            ext="pdf"),
          L("부하 테스트 사전 공지 및 일정 등록",
            "perf 환경은 공유 자원이므로 테스트 2일 전에 #perf-test 채널에 일정과 예상 TPS를 등록하세요."),
          M("Load testing: book the perf environment first",
            "The perf environment is shared. Book a slot in the #perf-test channel two days ahead and never point k6 at production."),
      ],
      [
          P("k6로 스트레스 테스트 해보려는데 운영에 쏴도 되나요? 아니면 별도 환경?", ["qa"], "question"),
          P("다음 주 수요일 perf 환경 써도 될까요? 결제 API 성능 측정하려구요", [], "discussion"),
          P("Where are we allowed to run load tests? Don't want to hammer staging.", [], "question"),
      ],
      [
          Q("casual", "부하테스트 어디서 돌려야돼요? 스테이징에 해도 되나", [], "question",
            ["부하 테스트 환경", "load test perf environment k6", "성능 테스트 가이드"],
            exclude=["다음 주 수요일 perf"]),
          Q("mixed", "perf 환경 load test 일정 잡는 방법?", ["qa"], "question",
            ["perf 환경 부하 테스트 일정", "load test schedule perf-test channel", "부하 테스트 사전 공지"],
            exclude=["k6로 스트레스", "Where are we allowed", "부하 테스트 수행 가이드"]),
      ])

topic("status-notice", "eng", "SRE", "Runbooks",
      "장애공지 statuspage 상태페이지 공지문 점검 maintenance downtime 다운타임",
      [
          F("고객 장애 공지 작성 가이드",
            "로그인·결제 등 핵심 기능 장애가 10분 이상 지속되면 CS팀과 함께 상태 페이지(status.contoso.io)에 공지합니다. "
            "공지문에는 영향 범위, 시작 시각, 다음 업데이트 예정 시각을 넣고 원인 추측은 {쓰지 마세요|적지 않습니다}."),
          L("장애 공지 템플릿 (국문/영문)",
            "[장애] 현재 일부 사용자의 로그인이 원활하지 않습니다. 원인을 확인 중이며 30분 안에 업데이트하겠습니다. / We are investigating login issues affecting some users."),
          M("[공지] 정기 점검 공지는 3일 전 게시 필수",
            "계획된 점검(다운타임 있음)은 최소 3일 전에 상태 페이지와 앱 공지로 안내해야 합니다."),
          L("점검 공지 체크리스트",
            "점검 일시, 영향 서비스, 예상 소요 시간, 문의처를 포함하세요. 앱 푸시는 마케팅 수신 동의와 관계없이 보낼 수 있습니다."),
          F("Status page: who posts and when",
            "The incident commander asks CS to post on the status page once customer impact is confirmed; updates follow every 30 minutes until resolved."),
      ],
      [
          P("로그인 안 된다는 문의가 폭주중인데 상태페이지 공지 누가 올려요??", ["cs"], "help"),
          P("점검 공지 문구 예시 있을까요? 다음 주 새벽에 DB 작업 있어요", [], "question"),
          P("Who is allowed to post on status.contoso.io during an outage?", [], "question"),
      ],
      [
          Q("slang", "헐 로그인 장애 났는데 고객 공지 어케 올려요 ㅠㅠ 급함", ["cs"], "help",
            ["로그인 장애 고객 공지", "status page incident notice", "장애 공지 템플릿"],
            exclude=["점검 공지 문구", "[공지] 정기 점검", "점검 공지 체크리스트"]),
          Q("plain", "계획된 점검 공지는 언제까지 올려야 하나요?", [], "question",
            ["정기 점검 공지 기한", "planned maintenance notice status page", "다운타임 사전 안내"],
            exclude=["로그인 안 된다는", "Who is allowed", "고객 장애 공지", "장애 공지 템플릿", "Status page: who posts"]),
      ])

topic("translation", "eng", "Product", "FAQ",
      "번역 다국어 translation translations localization l10n i18n 현지화 lokalise",
      [
          L("앱 문구 다국어 번역 요청 방법",
            "새 화면의 문구는 Lokalise에 키를 추가하고 'needs translation' 태그를 붙이세요. 영어·일본어는 로컬라이제이션팀이 3영업일 안에 번역합니다. "
            "릴리즈 {일주일 전까지|7일 전까지} 요청해야 합니다."),
          F("i18n 키 네이밍 규칙",
            "키는 화면.컴포넌트.용도 형식(예: checkout.button.pay)으로 작성합니다. 문장을 이어 붙이지 말고 플레이스홀더를 쓰세요."),
          F("Localization workflow",
            "Add new strings as keys in Lokalise and tag them 'needs translation'. The localization team translates English and Japanese within three business days."),
      ],
      [
          P("다음 릴리즈에 들어갈 문구 일본어 번역 요청 어디에 하나요?", ["mobile"], "question"),
          P("Lokalise에 키 올렸는데 아직 안 옮겨졌어요 보통 며칠 걸려요?", [], "question"),
      ],
      [
          Q("chatty", "이번 스프린트에 결제 화면 새로 만드는 중인데요, 영어랑 일본어 문구도 필요하다고 해서.. 다국어 작업은 누구한테 부탁하면 될까요?",
            ["mobile"], "question",
            ["앱 문구 번역 요청", "localization request Lokalise", "다국어 번역 일본어"],
            exclude=["i18n 키 네이밍"]),
          Q("keyword", "i18n 키 이름 규칙", [], None,
            ["i18n 키 네이밍", "i18n key naming convention", "다국어 키 규칙"],
            exclude=["다음 릴리즈에", "Lokalise에 키", "앱 문구 다국어", "Localization workflow"]),
      ])

# ==========================================================================
# IT
# ==========================================================================

topic("usb-export", "it", "Security", "FAQ",
      "usb 외장하드 저장매체 반출 dlp removable 이동식",
      [
          L("보안 USB 사용 신청 방법",
            "업무상 USB 저장장치가 필요하면 IT 포털 > 보안 > '저장매체 사용 신청'에서 기간과 사유를 입력하세요. 승인 후 보안 USB를 IT 헬프데스크(10층)에서 수령합니다. "
            "개인 USB는 DLP 정책으로 {차단됩니다|읽기 전용으로 막힙니다}."),
          F("자료 외부 반출 승인 절차",
            "고객사 제출용 등 사내 자료를 외부로 반출할 때는 반출 신청서에 팀장과 보안팀 승인을 받아야 합니다. 반출 기록은 1년간 보관됩니다."),
          M("DLP: personal USB drives blocked from 1 December",
            "Removable storage that is not a company-issued secure USB will be blocked on all managed laptops. Apply for a secure USB in the IT portal if you need one."),
          F("USB-C 허브 호환 목록",
            "사내 노트북과 호환되는 USB-C 허브와 동글 목록입니다.", ext="xlsx", near=True),
      ],
      [
          P("외장하드 꽂았는데 인식이 안 돼요.. 회사 정책으로 막힌건가요?", [], "help"),
          P("고객사에 자료를 USB로 전달해야 하는데 반출 승인 받아야 하나요?", ["security"], "question"),
          P("My USB stick is read-only on the work laptop, how do I get a secure USB?", [], "help"),
      ],
      [
          Q("typo", "보안 usb 신쳥 어디서 해요?", [], "question",
            ["보안 USB 신청", "secure USB request IT portal", "저장매체 사용 신청"],
            exclude=["고객사에 자료를", "자료 외부 반출"]),
          Q("chatty", "내일 고객사 미팅인데 거기 인터넷이 안 된대서요.. 발표자료 USB에 담아가려는데 자료 들고 나가도 되는지, 승인 같은거 필요한지 궁금합니다",
            ["security"], "question",
            ["자료 외부 반출 승인", "data export approval USB", "반출 신청서"],
            exclude=["외장하드 꽂았는데", "My USB stick"]),
          Q("english", "Are personal USB drives blocked on company laptops?", [], "question",
            ["personal usb blocked dlp", "secure usb request", "보안 USB 차단"],
            exclude=["고객사에 자료를", "자료 외부 반출"]),
      ])

topic("messenger-alerts", "it", "IT", "IT FAQ",
      "알림 notification notifications 방해금지 dnd 무음",
      [
          L("Teams/Slack 모바일 알림이 오지 않을 때",
            "1) 휴대폰 설정에서 앱 알림 허용 확인 2) 앱 안의 알림 설정이 '멘션만'인지 확인 3) PC에서 활동 중이면 모바일 알림이 오지 않습니다(기본값) "
            "4) 배터리 최적화 예외에 앱을 {추가하세요|등록하세요}."),
          F("근무시간 외 방해금지 설정 가이드",
            "Slack의 알림 일시중지(방해 금지) 스케줄을 19:00–09:00로 설정하세요. 긴급한 건은 상대방이 '알림 보내기'로 예외 전송할 수 있습니다."),
          F("Notification settings for Slack and Teams",
            "Mobile notifications are suppressed while you are active on the desktop. Set mobile notifications to 'immediately' and allow notifications in the phone settings."),
      ],
      [
          P("슬랙 폰 푸시가 하나도 안 와요ㅠ 멘션해도 조용함", [], "help"),
          P("퇴근 후에 메신저 알림 끄는 방법 공유합니다~ 방해금지 스케줄 쓰세요", [], "share"),
          P("Teams on my phone never notifies me about messages, is that a company setting?", [], "help"),
      ],
      [
          Q("spacing", "슬랙 모바일알림 안와요 설정어디서바꿔요", [], "help",
            ["슬랙 모바일 알림 안 옴", "slack mobile notifications not working", "Teams 알림 설정"],
            exclude=["퇴근 후에 메신저", "근무시간 외 방해금지"]),
          Q("casual", "일 끝나고는 메신저 울리는 거 안 받고 싶은데 다들 어떻게 하세요?", ["culture"], "discussion",
            ["메신저 방해금지 설정", "slack do not disturb schedule", "근무시간 외 알림"],
            exclude=["슬랙 폰 푸시", "Teams on my phone", "Teams/Slack 모바일", "Notification settings for Slack"]),
      ])

topic("shared-mailbox", "it", "IT", "IT FAQ",
      "공용메일함 메일함 사서함 mailbox mailboxes 위임 delegate delegation sendas",
      [
          L("공용 메일함(Shared mailbox) 권한 요청",
            "팀 공용 메일함(예: sales@contoso.com)에 접근하려면 IT 포털에서 '공용 메일함 권한'을 요청하세요. 메일함 소유자가 승인하면 Outlook에 {자동으로 추가됩니다|자동으로 나타납니다}."),
          F("공용 메일함 주소로 보내기(Send As) 설정",
            "권한을 받은 뒤 Outlook 새 메일에서 '보낸 사람' 필드를 표시하고 공용 메일 주소를 선택하면 됩니다. 웹 Outlook은 설정에서 '보낸 사람 표시'를 켜세요."),
          F("Shared mailboxes: access and Send As",
            "Request Full Access and Send As in the IT portal; the mailbox owner approves. The mailbox appears in Outlook within an hour, and you pick its address in the From field."),
          M("메일함 용량 100GB로 상향",
            "모든 개인 메일함 용량이 50GB에서 100GB로 늘어났습니다. 별도 조치는 필요 없습니다.", near=True),
      ],
      [
          P("support@ 메일함 같이 보고 싶은데 권한 누구한테 받아요?", [], "question"),
          P("공용메일 주소로 답장 보내는 법 아시는 분~ 자꾸 제 이름으로 나가요", [], "help"),
      ],
      [
          Q("mixed", "팀 shared mailbox 접근 권한 요청 방법 알려주세요", ["it"], "question",
            ["공용 메일함 권한 요청", "shared mailbox access request", "Outlook 공용 메일함 추가"],
            exclude=["공용메일 주소로 답장", "공용 메일함 주소로 보내기"]),
          Q("typo", "공용메일함에서 메일 보낼때 보낸사람 바꾸는거 어떻해요?", [], "help",
            ["공용 메일함 Send As", "send as shared mailbox outlook", "보낸 사람 변경"],
            exclude=["support@ 메일함", "공용 메일함(Shared mailbox) 권한"]),
          Q("english", "How do I send from the team's shared mailbox instead of my own address?", [], "help",
            ["send as shared mailbox", "outlook from field shared address", "공용 메일함 보내기"],
            exclude=["support@ 메일함", "공용 메일함(Shared mailbox) 권한"]),
      ])

topic("teams-recording", "it", "IT", "IT FAQ",
      "녹화 recording recordings recorded transcript transcription 자막 녹음",
      [
          L("Teams 회의 녹화 파일은 어디에 저장되나요?",
            "채널 회의 녹화는 해당 채널의 SharePoint 폴더에, 일반 회의 녹화는 녹화를 시작한 사람의 OneDrive 'Recordings' 폴더에 저장됩니다. "
            "보관 기간은 {120일입니다|120일이며 이후 자동 삭제됩니다}."),
          F("회의 녹화 및 자막(Transcript) 사용 가이드",
            "회의 중 '기타 > 녹화 및 전사 시작'을 누르세요. 외부 참석자가 있으면 녹화 전에 동의를 구해야 합니다. 한국어 자막은 회의 언어를 한국어로 설정해야 정확합니다.",
            near=True),
          M("Teams recordings now expire after 120 days",
            "New meeting recordings are deleted automatically after 120 days. Owners can change the expiry date in the file details."),
      ],
      [
          P("어제 전사 타운홀 녹화본 어디서 볼 수 있어요?", [], "question"),
          P("팀즈 회의 녹화했는데 파일이 안 보여요ㅠ 채팅에도 없음", ["it"], "help"),
          P("Where do Teams meeting recordings end up? Can't find mine", [], "help"),
      ],
      [
          Q("keyword", "팀즈 녹화 파일 위치", [], None,
            ["Teams 녹화 파일 위치", "teams meeting recording location onedrive", "회의 녹화 저장 위치"],
            ),
          Q("slang", "회의 녹화본 사라짐 ㅋㅋㅠ 지워진건가요?", [], "help",
            ["회의 녹화 만료", "teams recording expired 120 days", "녹화 파일 삭제"],
            exclude=["어제 전사 타운홀"]),
      ])

topic("email-signature", "it", "IT", "IT FAQ",
      "서명 이메일서명 signature signatures footer",
      [
          F("표준 이메일 서명 양식",
            "이름, 직함, 팀, 휴대폰, 회사 주소를 아래 양식대로 넣으세요. 이미지 로고는 {사용하지 않습니다|넣지 않습니다}. 영문 서명도 함께 제공합니다.", ext="docx"),
          L("Outlook 서명 설정 방법 (PC/웹/모바일)",
            "PC: 파일 > 옵션 > 메일 > 서명. 웹: 설정 > 메일 > 작성 및 회신. 모바일 앱은 서명을 앱 설정에서 따로 지정해야 합니다."),
          F("Email signature standard",
            "Name, title, team, mobile and office address; no images or quotes. Set it in Outlook under Settings > Mail > Compose and reply."),
      ],
      [
          P("아웃룩 서명 회사 양식 있나요? 다들 제각각이라", [], "question"),
          P("폰 아웃룩 앱에서 보내면 맨 밑에 Get Outlook for iOS 붙어요 ㅋㅋ 바꾸는법?", [], "help"),
      ],
      [
          Q("plain", "회사 표준 이메일 서명 양식이 있나요?", [], "question",
            ["표준 이메일 서명 양식", "email signature standard template", "Outlook 서명"],
            exclude=["폰 아웃룩 앱"]),
          Q("mixed", "Outlook 모바일 signature 설정 어디서 해요?", ["it"], "help",
            ["Outlook 모바일 서명 설정", "outlook mobile signature", "이메일 서명 설정 방법"],
            exclude=["아웃룩 서명 회사 양식", "표준 이메일 서명 양식"]),
      ])

topic("byod-mdm", "it", "IT", "IT FAQ",
      "intune 인튠 mdm byod 회사포털 companyportal enroll enrollment",
      [
          L("개인 휴대폰에서 Outlook/Teams 사용하기 (Intune)",
            "개인 휴대폰에서 회사 메일을 보려면 Intune 앱 보호 정책이 적용된 Outlook 앱을 써야 합니다. 기본 메일 앱은 {차단됩니다|연결되지 않습니다}. 기기 전체 등록은 필요 없습니다."),
          F("BYOD 보안 정책",
            "개인 기기에는 화면 잠금과 최신 OS가 필요합니다. 퇴사 시 회사 데이터만 원격 삭제되며 개인 사진 등은 삭제되지 않습니다.", ext="pdf"),
          F("Using work apps on your personal phone",
            "Install Outlook and Teams from the app store and sign in; Intune app protection applies automatically. Full device enrollment in Company Portal is not required."),
      ],
      [
          P("개인폰에 회사 메일 깔면 회사가 제 폰 다 볼 수 있는건가요? 좀 찝찝하네요", [], "question"),
          P("아이폰 기본 메일앱으로 회사계정 추가가 안되는데 원래 그런가요", [], "help"),
          P("Do I have to enroll my personal phone in Company Portal just to read email?", [], "question"),
      ],
      [
          Q("casual", "개인 핸드폰으로 회사 메일 보려면 뭐 설치해야 돼요?", [], "question",
            ["개인 휴대폰 회사 메일", "personal phone outlook intune", "BYOD 메일 설정"],
            exclude=["개인폰에 회사 메일"]),
          Q("chatty", "폰 바꾼 김에 업무용 앱 다시 깔려는데.. 인튠인가 그거 깔면 회사에서 내 사진까지 지울 수 있다는 소문이 있던데 진짜예요?", ["it"], "question",
            ["Intune 원격 삭제 개인 데이터", "BYOD policy remote wipe personal data", "인튠 개인 기기"],
            exclude=["아이폰 기본 메일앱", "Do I have to enroll"]),
      ])

topic("name-change", "it", "IT", "IT FAQ",
      "개명 영문이름 표시이름 displayname rename surname nickname",
      [
          L("메일·Teams 표시 이름 변경 요청",
            "Outlook/Teams에 표시되는 이름(영문 이름 포함)은 IT 포털 '계정 정보 변경'에서 요청합니다. 변경 후 모든 시스템에 반영되기까지 {최대 24시간|하루 정도} 걸립니다."),
          F("개명 시 인사 정보 변경 절차",
            "법적 개명 후 기본증명서를 HR에 제출하면 Workday, 급여, 메일 계정 이름이 함께 변경됩니다. 메일 주소 변경은 별도로 요청해야 합니다."),
          F("Changing your display name",
            "Request a new display name (for example an English first name or a corrected spelling) in the IT portal. It takes up to 24 hours to show in Outlook and Teams."),
      ],
      [
          P("팀즈에 제 영문 이름 철자가 틀리게 나와요 고칠 수 있나요?", [], "help"),
          P("개명했는데 회사 메일 주소도 바꿀 수 있나요?", [], "question"),
          P("Can I show my English nickname in Teams instead of my legal name?", [], "question"),
      ],
      [
          Q("mixed", "Teams display name 영문 이름으로 바꾸는 방법?", [], "question",
            ["표시 이름 변경", "teams display name change", "영문 이름 변경 IT 포털"],
            exclude=["개명했는데", "개명 시 인사 정보"]),
          Q("plain", "법적으로 개명을 했는데 사내 시스템 이름은 어떻게 변경하나요?", ["hr"], "question",
            ["개명 인사 정보 변경", "legal name change HR systems", "기본증명서 제출 HR"],
            exclude=["팀즈에 제 영문", "Can I show my English", "Changing your display name", "메일·Teams 표시 이름"]),
          Q("english", "How do I fix the spelling of my name in Outlook?", [], "help",
            ["display name spelling fix outlook", "change display name IT portal", "표시 이름 변경"],
            exclude=["개명했는데", "개명 시 인사 정보"]),
      ])

# ==========================================================================
# HR
# ==========================================================================

topic("employment-cert", "hr", "HR", "HR FAQ",
      "재직증명서 재직 증명서 경력증명서 employment coe",
      [
          L("재직증명서 발급 방법",
            "Workday > 내 정보 > 증명서 발급에서 재직증명서를 PDF로 바로 발급할 수 있습니다. 직인이 찍힌 원본이 필요하면 HR팀에 요청하세요({영업일 1일|하루 소요})."),
          F("영문 재직증명서(Certificate of Employment) 신청",
            "비자·해외 기관 제출용 영문 증명서는 HR 포털에서 신청하며, 급여 표기 여부를 선택할 수 있습니다."),
          F("Certificate of employment: self-service in Workday",
            "Download a Korean or English certificate of employment as a PDF from Workday. Stamped originals come from HR within one business day."),
          F("퇴직 후 경력증명서 발급 안내",
            "퇴사자는 HR 대표 메일로 경력증명서를 요청할 수 있습니다. 본인 확인 후 3일 안에 메일로 보내 드립니다.", near=True),
      ],
      [
          P("은행 대출 때문에 재직 증명서 필요한데 온라인으로 뽑을 수 있나요?", [], "question"),
          P("영어로 된 재직 확인서 받아보신 분? 비자 서류에 필요해서요", [], "question"),
      ],
      [
          Q("typo", "재직증명서 발굽 어디서 해요??", [], "question",
            ["재직증명서 발급", "certificate of employment Workday", "증명서 발급 HR"]),
          Q("spacing", "영문재직증명서 신청 하는법", ["hr"], "question",
            ["영문 재직증명서 신청", "english certificate of employment", "CoE 비자 제출"],
            exclude=["은행 대출 때문에", "재직증명서 발급 방법"]),
          Q("english", "How can I download a certificate of employment myself?", [], "question",
            ["certificate of employment download", "workday certificate self-service", "재직증명서 발급"]),
      ])

topic("resignation", "hr", "HR", "HR FAQ",
      "퇴사 퇴직 사직서 resignation resign resigning offboarding",
      [
          F("퇴사 절차 안내",
            "퇴사 예정일 30일 전까지 팀장과 HR에 알리고 Workday에서 퇴사 신청을 제출하세요. 마지막 근무일에 노트북과 출입카드를 반납하며, 계정은 {퇴사일 18시에|퇴사일 저녁에} 비활성화됩니다.",
            ext="pdf"),
          L("퇴직금 및 마지막 급여 정산",
            "퇴직금은 퇴사일로부터 14일 안에 지급되며, 남은 연차는 마지막 급여에서 수당으로 정산됩니다."),
          L("퇴사자 체크리스트 (IT 반납)",
            "노트북, 보안 USB, 법인카드를 반납하고 개인 파일은 퇴사 전에 정리하세요. 공유 문서 소유권은 팀장에게 이전됩니다."),
          F("Leaving Contoso: offboarding checklist",
            "Tell your manager and HR 30 days ahead, submit the resignation in Workday and return your laptop and badge on your last day. Severance pay arrives within 14 days."),
      ],
      [
          P("이직하게 돼서요.. 워크데이에서 그만두겠다고 올리면 되는 건가요? 한 달 전에 말해야 하나요", [], "question"),
          P("퇴직금 언제 들어오는지 아시는 분", [], "question"),
          P("What's the notice period when resigning, and where do I submit it?", [], "question"),
      ],
      [
          Q("plain", "퇴사하려면 어떤 절차를 밟아야 하나요?", ["hr"], "question",
            ["퇴사 절차", "resignation process offboarding", "퇴사 신청 Workday"],
            exclude=["퇴직금 언제"]),
          Q("casual", "퇴직금이랑 남은 연차수당은 언제 받아요?", [], "question",
            ["퇴직금 지급 시기", "severance pay last salary", "남은 연차 수당 정산"],
            exclude=["이직하게 돼서요", "What's the notice period", "퇴사자 체크리스트", "퇴사 절차 안내"]),
      ])

topic("condolence", "hr", "HR", "HR FAQ",
      "경조사 경조금 경조휴가 조의금 축의금 부고 bereavement funeral condolence condolences",
      [
          L("경조사 휴가 및 경조금 기준",
            "본인 결혼 5일(경조금 50만원), 자녀 결혼 1일, 부모·배우자 사망 5일(100만원), 조부모 사망 3일. 휴가는 {발생일로부터 30일 안에|30일 이내에} 사용해야 합니다."),
          F("경조금 신청 방법",
            "Workday > 복리후생 > 경조금 신청에서 청첩장 또는 부고 등 증빙을 첨부하세요. 매월 말일까지 신청한 건은 다음 달 급여와 함께 지급됩니다."),
          M("[HR] 사내 부고 게시 요청 방법",
            "직원 가족상 부고를 사내에 알리고 싶으면 본인 또는 팀장이 HR에 요청하세요. 근조화환은 회사 명의로 발송됩니다.",
            near=True),
          F("Family event leave and allowance",
            "Paid leave for your own wedding (5 days), the death of a parent or spouse (5 days) and of grandparents (3 days), plus a congratulatory or condolence allowance claimed in Workday."),
          F("경조사 화환 업체 목록",
            "총무팀 계약 화환 업체 연락처와 단가표입니다.", ext="xlsx", near=True),
      ],
      [
          P("다음 달 결혼하는데 경조휴가 며칠인가요? 신혼여행이랑 붙여 쓰려구요 ㅎㅎ", [], "question"),
          P("갑자기 할머니 상을 당했는데 휴가랑 회사 지원 어떻게 되나요", [], "help"),
          P("How many days off do we get for a funeral in the family?", [], "question"),
      ],
      [
          Q("casual", "결혼하면 휴가 며칠 줘요? 축의금도 회사에서 나오나?", [], "question",
            ["결혼 경조휴가 일수", "wedding leave allowance", "경조금 기준"],
            exclude=["갑자기 할머니", "How many days off"]),
          Q("mixed", "조부모상 경조 leave 며칠이고 지원금 신청은 어디서?", ["hr"], "question",
            ["조부모상 경조휴가", "bereavement leave grandparents", "경조금 신청 Workday"],
            exclude=["다음 달 결혼"]),
          Q("english", "Is there a condolence allowance if a family member passes away?", [], "question",
            ["condolence allowance family death", "bereavement leave policy", "경조금 신청"],
            exclude=["다음 달 결혼"]),
      ])

topic("intern-hiring", "hr", "HR", "HR FAQ",
      "인턴 인턴십 채용 intern interns internship",
      [
          F("인턴 채용 요청 절차",
            "인턴이 필요하면 분기 시작 6주 전까지 HR 포털에서 인턴 TO를 신청하세요. 직무 설명과 멘토를 지정해야 하며, 기간은 {3~6개월입니다|3개월에서 6개월 사이입니다}."),
          L("인턴 멘토 가이드",
            "첫 주 온보딩 일정, 주간 1:1, 최종 평가 양식을 안내합니다. 인턴 계정과 노트북은 입사 3일 전까지 IT에 요청하세요."),
          F("Hosting an intern",
            "Request an intern position six weeks before the quarter starts, name a mentor and prepare a project that fits three to six months."),
          M("2026 상반기 신입 공채 일정",
            "서류 접수 3월 4일~18일, 코딩테스트 3월 23일, 면접 4월 중. 지인 추천은 별도 채널로 받습니다.", near=True),
      ],
      [
          P("우리팀도 여름에 인턴 한 명 받고 싶은데 어디에 신청해요?", ["hr"], "question"),
          P("처음으로 인턴 멘토 맡게 됐는데 뭐 준비해야 할까요 ㅠ", [], "discussion"),
      ],
      [
          Q("chatty", "팀장님이 갑자기 이번 여름에 인턴 뽑자고 하셔서요 ㅎㅎ 요청은 언제까지 누구한테 해야 하나요?", [], "question",
            ["인턴 채용 요청 기한", "intern hiring request HR portal", "인턴 TO 신청"],
            exclude=["처음으로 인턴 멘토", "인턴 멘토 가이드"]),
          Q("keyword", "인턴 멘토 준비", ["hr"], None,
            ["인턴 멘토 가이드", "intern mentor onboarding", "인턴 온보딩 일정"],
            exclude=["우리팀도 여름에", "인턴 채용 요청 절차", "Hosting an intern"]),
          Q("english", "How far in advance do I need to request an intern for my team?", [], "question",
            ["intern request deadline", "hosting an intern HR portal", "인턴 채용 요청"],
            exclude=["처음으로 인턴 멘토", "인턴 멘토 가이드"]),
      ])

topic("welfare-points", "hr", "HR", "HR FAQ",
      "복지포인트 복지몰 포인트 welfare points",
      [
          L("복지포인트 사용 안내",
            "연간 복지포인트 120만 포인트가 매년 1월 1일 지급됩니다. 복지몰에서 바로 쓰거나, 개인 카드로 결제한 뒤 영수증을 올려 차감 신청할 수 있습니다. "
            "쓰지 않은 포인트는 {12월 31일에 소멸됩니다|연말에 사라집니다}."),
          F("복지포인트 사용 가능 항목",
            "도서, 공연, 여행, 자기계발, 의료비, 안경에 쓸 수 있습니다. 상품권 등 현금성 항목과 유흥업소는 불가합니다."),
          M("[HR] 복지포인트 차감 신청 마감 (12/15)",
            "올해 포인트 차감 신청은 12월 15일까지입니다. 이후 신청분은 처리되지 않고 남은 포인트는 이월되지 않습니다."),
          F("Welfare points: how to use them",
            "Every employee receives 1.2 million welfare points on 1 January. Spend them in the benefits mall or upload a receipt to claim them; unused points expire on 31 December."),
      ],
      [
          P("복지포인트로 안경 산 거 차감 신청 되나요? 영수증 있어요", [], "question"),
          P("포인트 올해 안에 다 써야 되는거 맞죠? 내년으로 넘어가진 않나", [], "question"),
          P("Can I use welfare points for concert tickets or only in the mall?", [], "question"),
      ],
      [
          Q("typo", "복지포인트 남은거 이월돼요? 언제 소멸되는지 궁굼", [], "question",
            ["복지포인트 이월 소멸", "welfare points expiry carryover", "복지포인트 마감"],
            exclude=["복지포인트로 안경", "Can I use welfare points", "복지포인트 사용 가능 항목"]),
          Q("mixed", "복지포인트 receipt 올려서 차감 신청하는 방법?", ["hr"], "question",
            ["복지포인트 차감 신청 영수증", "welfare points receipt claim", "복지몰 사용"],
            exclude=["포인트 올해 안에", "Can I use welfare points"]),
          Q("english", "What can welfare points be spent on?", [], "question",
            ["welfare points eligible items", "benefits mall welfare points", "복지포인트 사용 가능 항목"],
            exclude=["포인트 올해 안에", "[HR] 복지포인트 차감"]),
      ])

topic("housing-loan", "hr", "HR", "HR FAQ",
      "대출 주택자금 전세자금 전세 무이자 loan loans mortgage jeonse",
      [
          F("사내 주택자금 대출 제도",
            "근속 1년 이상 무주택 직원은 전세자금을 최대 5천만원까지 연 2% 이자로 빌릴 수 있습니다. 상환 기간은 최대 5년이며 {급여에서 매월 공제됩니다|매달 급여에서 빠져나갑니다}.",
            ext="pdf"),
          L("주택자금 대출 신청 서류",
            "전세계약서 사본, 주민등록등본, 무주택 확인서를 HR 포털에 업로드하세요. 심사는 매월 10일 마감, 말일 지급입니다."),
          F("Employee housing loan",
            "Employees with at least one year of service who do not own a home can borrow up to 50 million KRW for a jeonse deposit at 2% interest, repaid through payroll."),
          M("[제휴] 신한은행 임직원 우대 금리 안내",
            "신한은행 신용대출 상품에 임직원 우대 금리 0.3%p가 적용됩니다. 문의는 지점으로 하세요.", near=True),
      ],
      [
          P("회사에서 전세 보증금 빌려준다던데 조건이 어떻게 돼요? 입사 8개월차", [], "question"),
          P("주택자금 지원 서류 뭐뭐 필요한가요 이번달 접수하려구요", [], "question"),
          P("Does the company still offer a low-interest loan for the jeonse deposit?", [], "question"),
      ],
      [
          Q("slang", "사내대출 금리 몇 %예요? 전세 구하는데 급함ㅠ", [], "question",
            ["사내 대출 금리", "employee housing loan interest", "전세자금 대출 조건"],
            exclude=["주택자금 지원 서류", "주택자금 대출 신청 서류"]),
          Q("plain", "주택자금 대출 신청할 때 필요한 서류가 무엇인가요?", ["hr"], "question",
            ["주택자금 대출 신청 서류", "housing loan application documents", "전세계약서 무주택 확인서"],
            exclude=["회사에서 전세", "Does the company still", "사내 주택자금 대출 제도", "Employee housing loan"]),
      ])

topic("flex-time", "hr", "HR", "HR FAQ",
      "유연근무 시차 시차출퇴근 코어타임 flextime flexible coretime",
      [
          L("유연근무제(시차출퇴근) 운영 기준",
            "출근 시간은 08:00~10:30 사이에서 고를 수 있으며 코어타임은 10:30~16:00입니다. 하루 8시간 근무를 지키면 됩니다. 변경은 {월 단위로|한 달에 한 번} Workday에서 신청합니다."),
          F("유연근무 신청 방법",
            "Workday > 근무 > 근무 유형 변경에서 출근 시간을 선택하고 팀장 승인을 받으세요. 승인되면 다음 달 1일부터 적용됩니다."),
          F("Flexible working hours",
            "Pick a start time between 08:00 and 10:30; core hours are 10:30-16:00. Change it monthly in Workday with your manager's approval."),
      ],
      [
          P("아침 8시 출근 4시 퇴근 가능한가요? 애 픽업 때문에요", [], "question"),
          P("시차출근 신청하면 바로 다음날부터 적용돼요?", [], "question"),
      ],
      [
          Q("spacing", "유연근무 코어타임이 몇시부터몇시까지예요?", [], "question",
            ["유연근무 코어타임", "flexible hours core time", "시차출퇴근 기준"],
            exclude=["시차출근 신청하면"]),
          Q("casual", "출근시간 10시로 바꾸고 싶은데 어디서 바꿔요?", ["hr"], "question",
            ["출근 시간 변경 신청", "flexible working hours request Workday", "유연근무 신청"]),
          Q("english", "Can I start at 8 and leave at 4 under the flexible hours policy?", [], "question",
            ["flexible hours start time", "core hours policy", "유연근무 출근 시간"],
            exclude=["시차출근 신청하면", "유연근무 신청 방법"]),
      ])

topic("insurance-dependents", "hr", "HR", "HR FAQ",
      "피부양자 건강보험 dependents dependent nhis",
      [
          L("건강보험 피부양자 등록 방법",
            "배우자나 부모님을 피부양자로 올리려면 가족관계증명서를 HR에 제출하세요. HR이 국민건강보험공단에 신고하며 {약 1주일|일주일 정도} 걸립니다."),
          F("피부양자 자격 요건 요약",
            "소득·재산 기준을 충족해야 합니다. 연 소득이 2천만원을 넘으면 등록할 수 없습니다. 자세한 기준은 건강보험공단 안내를 참고하세요."),
          F("Adding family members to your national health insurance",
            "Send a family relation certificate to HR; HR registers your spouse, children or parents as dependents with the NHIS, which takes about a week."),
      ],
      [
          P("결혼해서 와이프를 제 의료보험에 올리고 싶은데 HR에 뭐 내야 하나요?", [], "question"),
          P("My parents are visiting for a year, can they be covered under my Korean health insurance?", [], "question"),
      ],
      [
          Q("typo", "피부양자 등록 서류 뭐 내야돼요? 배우자 올릴려구요", [], "question",
            ["피부양자 등록 서류", "health insurance dependents registration", "가족관계증명서 HR"],
            exclude=["My parents are visiting", "피부양자 자격 요건"]),
          Q("mixed", "부모님 health insurance 피부양자로 올릴 수 있는 조건?", ["hr"], "question",
            ["부모 피부양자 자격 요건", "NHIS dependent eligibility parents", "건강보험 피부양자 조건"],
            exclude=["결혼해서 와이프를"]),
          Q("english", "How do I add my spouse as a dependent to my health insurance?", [], "question",
            ["add spouse dependent health insurance", "NHIS dependent registration HR", "피부양자 등록"],
            exclude=["My parents are visiting", "피부양자 자격 요건"]),
      ])

# ==========================================================================
# FINANCE
# ==========================================================================

topic("corp-card-lost", "finance", "Finance", "Finance FAQ",
      "분실 도난 재발급 카드사 lost stolen reissue reissued",
      [
          L("법인카드 분실·도난 신고 절차",
            "법인카드를 잃어버리면 즉시 카드사(신한카드 1544-7000)에 분실 신고해 사용을 정지하고, 재무팀에 메일로 알려 주세요. "
            "신고 이후의 부정 사용분은 {회사가 처리합니다|본인 부담이 아닙니다}."),
          F("법인카드 재발급 신청",
            "분실 신고 후 재무 포털에서 재발급을 신청하면 5영업일 안에 받을 수 있습니다. 재발급 기간의 비용은 개인 카드로 결제한 뒤 경비로 청구하세요."),
          M("Lost or stolen corporate card",
            "Call Shinhan Card to block the card right away, then email finance. A new card arrives within five business days; meanwhile pay privately and claim the expense."),
          F("법인카드 한도 상향 요청",
            "월 한도 상향은 팀장 승인 후 재무팀에 요청합니다. 일시 상향은 최대 3개월입니다.", near=True),
      ],
      [
          P("택시에 회사 카드 두고 내린 것 같아요 ㅠㅠ 어디에 먼저 연락해야 해요?", [], "help"),
          P("카드 새로 나올 때까지 출장비는 어떻게 결제하나요", ["finance"], "question"),
          P("I think my corporate card was stolen at the airport. Who do I call first?", [], "help"),
      ],
      [
          Q("slang", "헐 법카 잃어버림 ㅠㅠ 어케해요", [], "help",
            ["법인카드 분실 신고", "corporate card lost stolen", "법인카드 재발급"],
            exclude=["카드 새로 나올 때까지"]),
          Q("plain", "법인카드 재발급은 얼마나 걸리나요?", ["finance"], "question",
            ["법인카드 재발급 기간", "corporate card reissue", "재무 포털 재발급 신청"],
            exclude=["택시에 회사 카드", "I think my corporate card", "법인카드 분실·도난"]),
      ])

topic("trip-settlement", "finance", "Finance", "Finance FAQ",
      "정산 일비 숙박비 settlement settle",
      [
          L("출장비 정산 방법 (국내/해외)",
            "출장에서 돌아온 뒤 14일 안에 Concur에서 출장 경비 보고서를 제출하세요. 숙박비·교통비는 영수증을 첨부하고, 일비는 영수증 없이 {일수만큼 자동 계산됩니다|출장 일수로 계산됩니다}."),
          F("출장 경비 정산 FAQ",
            "Q. 영수증을 잃어버렸어요 → 지출 확인서를 작성하세요. Q. 환율은? → 카드 결제일 기준 환율을 적용합니다. Q. 기한이 지나면? → 팀장 사유서가 필요합니다."),
          M("[재무] 11월 출장비 정산 마감 안내",
            "11월 출장분은 12월 5일까지 제출해야 이번 달 급여와 함께 지급됩니다."),
          F("Settling a business trip in Concur",
            "Submit the trip expense report within 14 days of returning and attach hotel and transport receipts. Foreign card payments use the exchange rate of the card statement date."),
      ],
      [
          P("출장 다녀온 지 3주 지났는데 아직 경비 청구 안 했어요.. 늦으면 못 받나요?", [], "question"),
          P("해외출장 때 현지에서 카드로 긁은 건 원화로 얼마로 잡혀요?", ["finance"], "question"),
          P("Deadline for submitting my Tokyo trip expenses? Been back two weeks.", [], "question"),
      ],
      [
          Q("keyword", "출장 정산 기한", [], None,
            ["출장비 정산 기한", "business trip expense settlement deadline", "Concur 출장 경비 보고서"],
            exclude=["해외출장 때"]),
          Q("mixed", "해외 출장 expense 정산할 때 환율 기준이 뭐예요?", ["finance"], "question",
            ["해외 출장 정산 환율", "trip expense exchange rate concur", "출장 경비 FAQ"],
            exclude=["출장 다녀온 지 3주", "Deadline for submitting", "[재무] 11월 출장비"]),
          Q("english", "Is there a deadline for submitting business trip expenses?", [], "question",
            ["business trip expense deadline", "concur trip report 14 days", "출장비 정산 마감"],
            exclude=["해외출장 때"]),
      ])

topic("overtime-meal", "finance", "Finance", "Finance FAQ",
      "야근 야식 식대 석식 overtime latenight",
      [
          L("야근 식대 지원 기준",
            "20시 이후까지 근무한 경우 1인 1만2천원까지 저녁 식대를 법인카드로 결제할 수 있습니다. 주말 근무 시에는 점심도 지원됩니다. 주류는 {불가합니다|포함되지 않습니다}."),
          F("야근 식대 청구 방법",
            "개인 카드로 결제했다면 Concur에서 비용 유형 '야근 식대'를 선택하고 영수증과 근무 시간을 입력하세요."),
          F("Overtime meal allowance",
            "Working past 20:00? Dinner up to 12,000 KRW per person can be paid with the corporate card or claimed in Concur as 'Overtime meal'. No alcohol."),
      ],
      [
          P("늦게까지 남을 때 저녁 배달시키면 회사에서 얼마까지 내줘요?", [], "question"),
          P("주말 출근했는데 점심값도 청구 가능한가요??", [], "question"),
          P("Is dinner covered when we stay late for a release?", [], "question"),
      ],
      [
          Q("casual", "야근하면 밥값 지원돼요? 한도 얼마예요", [], "question",
            ["야근 식대 한도", "overtime meal allowance", "저녁 식대 지원 기준"]),
          Q("spacing", "야근식대 청구 콘커에서 어떻게해요", ["finance"], "question",
            ["야근 식대 청구 Concur", "overtime meal expense claim", "식대 영수증 제출"],
            exclude=["주말 출근했는데"]),
          Q("english", "What's the limit for an overtime dinner?", [], "question",
            ["overtime dinner limit", "overtime meal allowance policy", "야근 식대 기준"],
            exclude=["주말 출근했는데"]),
      ])

topic("contract-review", "finance", "Legal", "Legal FAQ",
      "계약서 법무 비밀유지 contract contracts nda legal",
      [
          L("계약서 법무 검토 요청 방법",
            "계약 체결 전에 Legal 포털에 계약서 초안(Word)과 계약 상대방, 금액, 기한을 등록하세요. 표준 NDA는 2영업일, 일반 계약은 {5영업일이|일주일가량이} 걸립니다."),
          F("표준 비밀유지계약서(NDA) 양식",
            "회사 표준 NDA 양식(국문/영문)입니다. 상대방이 수정을 요청하면 법무팀 검토를 받아야 합니다.", ext="docx"),
          F("Contract review by Legal",
            "Upload the draft contract to the Legal portal with the counterparty, amount and deadline. Standard NDAs take two business days, other contracts five."),
          M("[법무] 전자계약 도입 안내",
            "이제 계약 서명은 전자계약 시스템으로 진행합니다. 종이 계약서 날인 요청은 받지 않습니다.", near=True),
      ],
      [
          P("파트너사랑 NDA 맺어야 하는데 회사 양식 있나요?", [], "question"),
          P("상대방이 보낸 계약 초안 법무팀 확인 받으려면 어떻게 해요? 급한 건인데 며칠 걸리는지도 궁금", ["legal"], "question"),
          P("How long does Legal take to review a vendor contract?", [], "question"),
      ],
      [
          Q("mixed", "vendor 계약서 법무 검토 요청은 어디서 하나요?", [], "question",
            ["계약서 법무 검토 요청", "contract legal review request", "Legal 포털 계약 검토"],
            exclude=["파트너사랑 NDA", "표준 비밀유지계약서"]),
          Q("typo", "nda 양식 어디있어요? 영문으로 된거 필요함", ["legal"], "question",
            ["NDA 양식 영문", "standard NDA template", "비밀유지계약서 양식"],
            exclude=["상대방이 보낸 계약", "How long does Legal", "Contract review by Legal", "계약서 법무 검토 요청"]),
          Q("english", "Do we have a standard NDA template?", [], "question",
            ["standard nda template", "non-disclosure agreement form", "비밀유지계약서 양식"],
            exclude=["상대방이 보낸 계약", "How long does Legal", "Contract review by Legal", "계약서 법무 검토 요청"]),
      ])

topic("gift-report", "finance", "Legal", "Legal FAQ",
      "선물 청탁금지법 김영란법 gift gifts ethics",
      [
          L("거래처 선물 수수 기준",
            "거래처로부터 받는 선물은 3만원 이하만 허용됩니다. 초과하는 선물은 돌려보내거나 윤리경영팀에 신고한 뒤 기부 처리합니다. 현금·상품권은 {금액과 무관하게|얼마든} 금지입니다."),
          F("윤리경영 신고 양식 (선물·접대)",
            "받은 선물의 품목, 금액, 제공자를 적어 제출하세요. 신고 후 7일 안에 처리 결과를 안내합니다.", ext="docx"),
          F("Gifts from business partners",
            "You may keep gifts up to 30,000 KRW. Report anything above that to the ethics team; cash and gift cards are never allowed."),
          M("[윤리경영] 명절 선물 주고받기 자제 요청",
            "추석을 앞두고 협력사와의 선물 교환을 자제해 주시기 바랍니다. 받은 선물은 반송하거나 신고해 주세요."),
      ],
      [
          P("협력사에서 추석이라고 한우세트 보내왔는데 받아도 되는 건가요?", [], "question"),
          P("고객사가 상품권 줬는데 돌려줘야 하나요 ㅠ 신고는 어디에?", [], "question"),
          P("A vendor sent me a bottle of whisky for the holidays, do I have to report it?", [], "question"),
      ],
      [
          Q("plain", "거래처에서 받은 선물은 얼마까지 받아도 되나요?", [], "question",
            ["거래처 선물 수수 기준", "gifts from vendors policy", "청탁금지법 선물 한도"]),
          Q("chatty", "명절 끝나고 사무실 와보니까 제 자리에 협력업체 과일바구니가 ㅋㅋ 감사하긴 한데 이거 어디 알려야 되는 건가요?", ["compliance"], "question",
            ["협력업체 선물 신고", "report gift ethics team", "윤리경영 신고 양식"]),
          Q("english", "What's the rule on accepting gifts from vendors?", [], "question",
            ["accepting gifts vendors policy", "gift limit ethics", "선물 수수 기준"]),
      ])

# ==========================================================================
# FACILITIES / GENERAL AFFAIRS
# ==========================================================================

topic("courier-send", "facilities", "GeneralAffairs", "FAQ",
      "퀵 퀵서비스 택배 courier couriers parcel parcels",
      [
          L("업무용 택배·퀵 발송 방법",
            "업무 서류나 샘플을 보낼 때는 1층 우편물실에 발송 요청서를 작성해 맡기세요. 택배는 {16시까지|오후 4시까지} 접수분 당일 발송, 급한 건은 퀵서비스를 총무팀에 요청합니다(부서 비용 처리)."),
          F("퀵서비스 이용 안내",
            "퀵 요청은 총무 포털에서 출발지·도착지·물품을 입력하세요. 서울 시내는 평균 1시간 안에 도착합니다."),
          F("Sending business parcels and couriers",
            "Drop business parcels at the 1F mailroom with a shipping form before 16:00 for same-day dispatch. Book a motorbike courier through the general affairs portal."),
      ],
      [
          P("고객사에 계약서 원본 오늘 중으로 보내야 하는데 오토바이 배송 어떻게 불러요?", ["admin"], "help"),
          P("샘플 제품 부치려면 1층에 그냥 맡기면 되나요?", [], "question"),
          P("How do I send a package to a customer from the office?", [], "question"),
      ],
      [
          Q("slang", "퀵 급하게 불러야 되는데 회사 계정으로 부르는법 ㅠ", [], "help",
            ["퀵서비스 요청", "courier request general affairs", "업무용 퀵 발송"],
            exclude=["샘플 제품 부치려면"]),
          Q("typo", "업무용 택배 보낼려면 어디다 맏겨요?", ["admin"], "question",
            ["업무용 택배 발송", "business parcel mailroom", "우편물실 발송 요청서"],
            exclude=["고객사에 계약서 원본", "퀵서비스 이용 안내"]),
          Q("english", "Where do I drop off a business parcel to be shipped?", [], "question",
            ["business parcel drop off mailroom", "shipping form same-day dispatch", "업무용 택배 발송"],
            exclude=["고객사에 계약서 원본", "퀵서비스 이용 안내"]),
      ])

topic("office-move", "facilities", "GeneralAffairs", "Notices",
      "이사 이삿짐 짐싸기 packing boxes movers",
      [
          F("12층 → 15층 사무실 이사 안내",
            "이사일: 3월 14일(금) 18시 이후. 개인 짐은 지급된 박스에 담아 이름과 새 자리 번호 라벨을 붙여 주세요. 모니터·PC는 {IT팀이 옮깁니다|IT팀이 따로 운반합니다}.",
            ext="pdf"),
          L("이사 박스 수령 및 라벨 규칙",
            "박스는 이사 3일 전 층별 탕비실 앞에서 1인당 3개씩 받을 수 있습니다. 라벨에는 이름/팀/새 좌석 번호를 적으세요."),
          M("Office move to 15F: what you need to do",
            "Pack your personal items into the boxes provided, label them with your name and new desk number and leave them at your desk by 18:00 on Friday. IT moves monitors and docks."),
      ],
      [
          P("자리 옮길 때 상자 몇 개까지 받을 수 있어요? 물건이 많아서 ㅋㅋ", [], "question"),
          P("금요일 15층 가기 전에 모니터도 제가 싸야 하나요?", [], "question"),
          P("For the floor move on Friday, do we pack our own monitors?", [], "question"),
      ],
      [
          Q("casual", "사무실 이사 때 개인 짐은 어떻게 싸요? 라벨 붙여야 하나요?", [], "question",
            ["사무실 이사 짐 포장", "office move packing labels", "이사 박스 라벨"]),
          Q("keyword", "15층 이사 모니터", [], None,
            ["이사 모니터 IT", "office move monitors IT", "15층 이사 안내"],
            exclude=["자리 옮길 때 상자", "이사 박스 수령"]),
          Q("english", "How many moving boxes do we get for the office move?", [], "question",
            ["moving boxes per person", "office move boxes labels", "이사 박스 수령"],
            exclude=["금요일 15층", "For the floor move"]),
      ])

topic("office-supplies", "facilities", "GeneralAffairs", "FAQ",
      "비품 사무용품 볼펜 포스트잇 supplies stationery",
      [
          L("사무용품(비품) 신청 방법",
            "볼펜, 노트, 포스트잇 등 기본 비품은 층별 비품함에서 자유롭게 가져가세요. 없는 품목은 총무 포털에서 신청하면 {매주 화요일|화요일마다} 일괄 지급됩니다."),
          F("비품 신청 가능 품목 리스트",
            "기본 제공: 필기구, 노트, 파일, 가위, 스테이플러. 신청 필요: 화이트보드 마커 대량, 명패, 서랍장 열쇠.", ext="xlsx"),
          F("Office supplies",
            "Basic stationery is in the cabinet on every floor. Order anything else in the general affairs portal; orders are delivered on Tuesdays."),
      ],
      [
          P("포스트잇이랑 펜 어디서 가져가요? 신규입사자입니다", [], "question"),
          P("화이트보드 마커 다 말랐어요.. 새 거는 누구한테 말하면 돼요?", [], "help"),
      ],
      [
          Q("spacing", "비품신청 어디서하나요 마커가필요해요", [], "question",
            ["비품 신청", "office supplies request", "사무용품 총무 포털"]),
          Q("plain", "사무용품은 어디에서 받을 수 있나요?", ["admin"], "question",
            ["사무용품 비품함 위치", "stationery cabinet office supplies", "비품 신청 방법"]),
      ])

topic("extension-phone", "facilities", "IT", "IT FAQ",
      "내선 내선번호 유선전화 착신 extension deskphone forwarding",
      [
          L("내선번호 조회 및 변경",
            "내선번호는 Outlook 주소록이나 Teams 프로필에서 확인할 수 있습니다. 자리 이동으로 번호를 바꿔야 하면 IT 포털 '전화' 메뉴에서 {요청하세요|신청하세요}."),
          F("유선전화 착신 전환 설정 방법",
            "전화기에서 *72 + 번호로 착신 전환, *73으로 해제합니다. Teams 전화로 돌리려면 IT에 요청하세요."),
          F("Desk phones: extensions and call forwarding",
            "Find any extension in the Outlook address book. Forward your desk phone with *72 followed by the number; cancel with *73."),
          M("내선 전화기 교체 작업 안내",
            "이번 주 토요일 13~14층 유선 전화기를 새 모델로 교체합니다. 번호는 그대로 유지됩니다.", near=True),
      ],
      [
          P("재택하는 날 회사 전화 휴대폰으로 돌리는 방법 있나요?", [], "question"),
          P("새로 온 팀원 자리 번호(전화) 어디서 확인해요?", [], "question"),
      ],
      [
          Q("typo", "사무실 전화 착신전환 어떻게 하는거에여?", [], "question",
            ["유선전화 착신 전환", "desk phone call forwarding", "내선 착신 설정"],
            exclude=["새로 온 팀원", "내선번호 조회"]),
          Q("casual", "팀원 내선번호는 어디서 찾아봐요?", [], "question",
            ["내선번호 조회", "desk phone extension lookup", "Outlook 주소록 내선"],
            exclude=["재택하는 날", "유선전화 착신 전환"]),
          Q("english", "How do I forward my desk phone to my mobile?", [], "question",
            ["desk phone call forwarding mobile", "forward extension *72", "착신 전환"],
            exclude=["새로 온 팀원", "내선번호 조회"]),
      ])

topic("event-photos", "facilities", "Culture", "Notices",
      "사진 행사사진 앨범 photo photos album",
      [
          L("사내 행사 사진 앨범 위치",
            "워크숍, 송년회 등 사내 행사 사진은 Culture 사이트의 '행사 사진' 라이브러리에 행사별 폴더로 올라갑니다. {보통 행사 후 1주일 안에|대개 일주일 이내에} 업로드됩니다."),
          F("행사 사진 외부 게시 및 초상권 안내",
            "사내 행사 사진을 개인 SNS에 올릴 때는 사진 속 동료의 동의를 받으세요. 사진 삭제 요청은 컬처팀에 하시면 됩니다."),
          M("[컬처팀] 상반기 워크숍 사진 업로드 완료",
            "지난주 가평 워크숍 사진 1,200장이 앨범에 올라갔습니다. 원본 다운로드도 가능합니다."),
          F("Company event photos",
            "Photos from workshops and other company events are in the Culture site's event photo library, one folder per event, usually within a week."),
      ],
      [
          P("지난주 가평 다녀온 거 단체샷 원본 받고 싶은데 올라왔나요?", [], "question"),
          P("행사 때 찍힌 제 얼굴 나온 거 내려달라고 하려면 어디에 말해요?", [], "question"),
          P("Where can I find the photos from the spring workshop?", [], "question"),
      ],
      [
          Q("keyword", "워크숍 사진 앨범", [], None,
            ["워크숍 사진 앨범", "company event photos library", "행사 사진 위치"],
            exclude=["행사 때 찍힌", "행사 사진 외부 게시"]),
          Q("casual", "회사 행사 사진에서 제 사진 빼달라고 할 수 있나요?", [], "question",
            ["행사 사진 삭제 요청", "event photo removal consent", "초상권 사진 삭제"],
            exclude=["지난주 가평", "Where can I find the photos", "사내 행사 사진 앨범", "[컬처팀] 상반기", "Company event photos"]),
      ])

topic("meeting-minutes", "facilities", "Intranet", "Templates",
      "회의록 의사록 안건 액션아이템 agenda meetingnotes",
      [
          F("회의록 템플릿 (Loop/Word)",
            "회의 목적, 참석자, 논의 내용, 결정 사항, 액션 아이템(담당자/기한) 순서로 작성합니다. Teams 회의에 Loop 회의록을 연결하면 {참석자 모두|모든 참석자가} 편집할 수 있습니다.",
            ext="docx"),
          L("회의록 작성 및 공유 규칙",
            "주요 의사결정 회의는 24시간 안에 회의록을 팀 SharePoint에 올리고 참석자에게 공유합니다."),
          F("Meeting notes template",
            "Purpose, attendees, discussion, decisions and action items with owners and due dates. Attach the Loop notes to the Teams meeting so everyone can edit."),
      ],
      [
          P("회의 기록 양식 통일된 거 있나요? 팀마다 다 달라서요", [], "question"),
          P("Is there a standard template for meeting minutes?", [], "question"),
      ],
      [
          Q("mixed", "회의록 template 회사 표준 있나요?", [], "question",
            ["회의록 템플릿", "meeting notes template", "회의록 작성 규칙"]),
          Q("spacing", "회의록은 언제까지 올려야되나요 공유는어디에", ["admin"], "question",
            ["회의록 공유 기한", "meeting notes sharing rule SharePoint", "회의록 작성 규칙"],
            exclude=["회의 기록 양식", "Is there a standard template", "회의록 템플릿", "Meeting notes template"]),
      ])

topic("org-chart", "facilities", "HR", "HR FAQ",
      "조직도 업무분장 구성원 orgchart directory",
      [
          L("조직도 및 담당 업무 찾기",
            "최신 조직도는 Workday > 조직도 또는 Teams의 '조직' 탭에서 볼 수 있습니다. 부서별 업무 분장표는 {각 팀 SharePoint에|팀별 SharePoint 사이트에} 있습니다."),
          F("2026 조직 개편 안내 및 조직도",
            "1월 1일부 조직 개편으로 플랫폼본부가 신설되었습니다. 바뀐 조직도를 첨부합니다.", ext="pptx"),
          F("Finding people and teams",
            "Use the org chart in Workday or the Organization tab in Teams to see who reports to whom and which team owns what."),
      ],
      [
          P("결제 관련 문의 누구한테 해야 하는지 모르겠어요 팀별 맡은 일 정리된 거 있나요?", [], "question"),
          P("조직 개편 후 우리 팀이 어디 밑으로 갔는지 볼 수 있는 데 있나요 ㅋㅋ", [], "question"),
      ],
      [
          Q("slang", "조직도 어디서 봄? 개편 후에 하나도 모르겠음ㅋㅋ", [], "question",
            ["조직도 확인", "org chart Workday Teams", "조직 개편 조직도"]),
          Q("plain", "특정 업무 담당 팀을 찾으려면 어디를 보면 되나요?", [], "question",
            ["업무 분장표", "team ownership directory", "담당 부서 찾기"],
            exclude=["조직 개편 후", "2026 조직 개편"]),
      ])

topic("massage-room", "facilities", "GeneralAffairs", "FAQ",
      "안마 안마실 마사지 massage masseur",
      [
          L("사내 안마실(헬스키퍼) 예약 안내",
            "16층 안마실은 평일 10:00~18:00 운영하며 1회 30분, 주 1회 예약할 수 있습니다. 예약은 총무 포털에서 하고 {노쇼 2회 시|두 번 노쇼하면} 한 달간 예약이 제한됩니다."),
          M("[총무] 안마실 운영 시간 변경",
            "12월부터 안마실 운영 시간이 09:00~17:00로 바뀝니다."),
          F("Massage room on 16F",
            "Book a 30-minute session once a week in the general affairs portal. Two no-shows block bookings for a month."),
      ],
      [
          P("어깨 뭉쳐서 헬스키퍼 받아보고 싶은데 신청 어디서 해요? ㅠ", [], "question"),
          P("헬스키퍼 예약해놓고 못 가면 패널티 있나요?", [], "question"),
          P("Is the massage room free? How often can I book it?", [], "question"),
      ],
      [
          Q("typo", "안마실 예악 어떻게 해요", [], "question",
            ["안마실 예약", "massage room booking", "헬스키퍼 예약"]),
          Q("casual", "마사지실 몇시까지 해요?", [], "question",
            ["안마실 운영 시간", "massage room opening hours", "헬스키퍼 운영시간"],
            exclude=["헬스키퍼 예약해놓고", "어깨 뭉쳐서", "Is the massage room free", "Massage room on 16F"]),
      ])

topic("smoking-area", "facilities", "GeneralAffairs", "FAQ",
      "흡연 흡연구역 흡연부스 담배 전자담배 smoking smoke vape",
      [
          L("건물 내 흡연 구역 안내",
            "건물 내부와 출입구 10m 이내는 전면 금연입니다. 흡연은 지하 1층 주차장 옆 흡연부스에서만 {가능합니다|할 수 있습니다}. 전자담배도 똑같이 적용됩니다."),
          M("[공지] 출입구 앞 흡연 민원 관련",
            "정문 앞 흡연으로 인근 주민 민원이 계속되고 있습니다. 지정 흡연부스를 이용해 주세요."),
          F("Smoking areas",
            "Smoking, including e-cigarettes, is only allowed in the booth on B1 next to the car park. No smoking within 10 m of the entrances."),
      ],
      [
          P("액상 피우는 것도 베란다에서 하면 안 되나요?", [], "question"),
          P("담배 필 수 있는 곳이 어디예요? 이번주 입사했어요", [], "question"),
      ],
      [
          Q("slang", "흡연부스 어디임?? 신입이라 ㅠ", [], "question",
            ["흡연 구역 위치", "smoking area building", "흡연부스 위치"]),
          Q("plain", "전자담배도 흡연구역에서만 피워야 하나요?", [], "question",
            ["전자담배 흡연 구역", "e-cigarette smoking policy", "금연 구역 규정"],
            exclude=["담배 필 수 있는 곳"]),
      ])

topic("chair-repair", "facilities", "GeneralAffairs", "FAQ",
      "의자 인체공학 높이조절 모션데스크 chair chairs ergonomic standing",
      [
          L("의자·책상 고장 수리 요청",
            "의자 가스 실린더 고장, 바퀴 파손 등은 총무 포털 '시설 수리'에서 사진과 자리 번호를 첨부해 요청하세요. {2영업일 안에|이틀 안에} 수리하거나 교체합니다."),
          F("인체공학 의자·모션데스크 지원 기준",
            "허리·목 질환 진단서가 있으면 인체공학 의자 또는 높이조절 책상을 지원합니다. 신청은 총무팀에 하세요."),
          F("Broken chair or desk",
            "Report it in the general affairs portal with a photo and your seat number; it is repaired or replaced within two business days."),
          F("의자 요가 클래스 (점심시간)",
            "자리에서 할 수 있는 의자 요가 클래스가 매주 목요일 12:30에 열립니다.", near=True),
      ],
      [
          P("앉아 있으면 높이가 자꾸 내려가요 ㅋㅋㅋ 바꿔주나요", [], "help"),
          P("허리 때문에 서서 일하는 책상 쓰고 싶은데 회사에서 지원해주나요?", [], "question"),
          P("My chair is broken (one wheel came off), who fixes that?", [], "help"),
      ],
      [
          Q("spacing", "의자고장 수리요청 어디서해요", [], "help",
            ["의자 수리 요청", "broken chair repair request", "시설 수리 총무 포털"],
            exclude=["허리 때문에", "인체공학 의자"]),
          Q("mixed", "허리 디스크 때문에 standing desk 신청 가능한가요?", ["facilities"], "question",
            ["모션데스크 지원 기준", "standing desk ergonomic request", "인체공학 의자 지원"],
            exclude=["앉아 있으면", "My chair is broken", "의자·책상 고장", "Broken chair or desk"]),
          Q("english", "Can I get an ergonomic chair if I have back problems?", [], "question",
            ["ergonomic chair back problems", "standing desk support medical", "인체공학 의자 지원"],
            exclude=["앉아 있으면", "My chair is broken", "의자·책상 고장", "Broken chair or desk"]),
      ])


# ==========================================================================
# DISTRACTORS: documents that share everyday words with some topic but are
# about something else, and unrelated posts
# ==========================================================================

DISTRACTORS = [
    M("[공지] 엘리베이터 정기 점검 (3/12)", "3월 12일 10시~12시 3호기 엘리베이터 정기 점검이 있습니다. 다른 호기를 이용해 주세요."),
    L("사내 카페 신메뉴 안내 - 딸기라떼", "이번 달 사내 카페 신메뉴는 딸기라떼와 말차 스콘입니다. 복지 할인 20%가 적용됩니다.", site="Culture", lst="Notices"),
    F("영업 파이프라인 주간 리포트", "이번 주 신규 리드 42건, 계약 단계 7건. 지역별 전환율을 정리했습니다.", ext="xlsx", site="Sales"),
    F("카드뉴스 제작 가이드 (마케팅)", "인스타그램 카드뉴스 사이즈, 폰트, 톤앤매너 가이드입니다.", ext="pptx", site="Marketing"),
    L("방송실 USB 마이크 대여", "사내 방송실 USB 마이크와 조명은 마케팅팀 캘린더로 예약해 빌릴 수 있습니다.", site="Marketing", lst="Equipment"),
    M("[사진 동호회] 11월 출사 공지", "이번 달 출사는 서울숲입니다. 카메라가 없어도 참여 가능합니다."),
    M("[시설] 주말 서버실 전기 공사로 인한 정전 안내", "토요일 09:00~15:00 B2 서버실 전기 공사로 일부 층 전원이 차단됩니다. 개인 PC는 꼭 꺼 주세요."),
    F("이사회 회의록 (2025년 4분기)", "4분기 정기 이사회 안건과 의결 사항입니다. 열람은 경영지원실 승인 후 가능합니다.", ext="pdf", site="Executive"),
    L("고객 증정용 기념품 주문 안내 (마케팅)", "전시회·세미나에서 나눠 줄 텀블러, 에코백 등 기념품은 마케팅 포털에서 주문합니다.", site="Marketing", lst="Requests"),
    M("[교육] 리더십 과정 수료증 발급 안내", "리더십 과정을 마친 분들은 러닝 포털에서 수료증을 내려받을 수 있습니다."),
    L("출장 세차 서비스 (주차장 B2)", "매주 수요일 B2 주차장에서 출장 세차 서비스를 이용할 수 있습니다. 요금은 개인 부담입니다.", site="GeneralAffairs", lst="Notices"),
    M("신규 입사자 프로필 사진 촬영 일정", "이번 달 입사자 프로필 사진 촬영은 목요일 15시 11층 스튜디오에서 진행합니다."),
    M("[공지] A/B동 연결통로 공사 안내", "A동과 B동 사이 연결통로가 2주간 공사로 폐쇄됩니다. 1층 로비로 돌아가 주세요."),
    F("Redis 밋업 발표자료 (외부)", "외부 Redis 사용자 모임에서 발표한 '캐시 설계 패턴' 발표자료입니다.", ext="pptx", user="sarah_lee"),
    L("영문 보도자료 번역본 (홍보팀)", "지난주 배포한 파트너십 보도자료의 영문 번역본입니다.", site="PR", lst="PressReleases"),
    M("화재경보 알람 오작동 안내", "오늘 오전 14층 화재경보 알람은 센서 오작동이었습니다. 점검을 마쳤습니다."),
    L("사내 도서관 대출 도서 반납 안내", "대출 기간 2주가 지난 도서는 이번 주 금요일까지 11층 도서관에 반납해 주세요.", site="Culture", lst="Library"),
    F("복지 시설 안내: 수면실·수유실", "15층 수면실과 수유실 위치, 이용 시간, 이용 수칙을 안내합니다.", site="GeneralAffairs"),
    M("[필수] 개인정보보호 법정의무교육 이수 안내", "올해 개인정보보호 법정의무교육을 12월 20일까지 이수해 주세요."),
    L("클린 데스크 점검 결과 (11월)", "퇴근 시 책상 위 서류 방치 12건이 확인되었습니다. 잠금 서랍을 이용해 주세요.", site="Security", lst="Notices"),
    M("[총무] 주차권 등록 방식 변경", "방문객 주차권은 이제 안내데스크가 아니라 총무 포털에서 등록합니다."),
    F("2026 연간 행사 캘린더", "창립기념일, 체육대회, 송년회 등 올해 사내 행사 일정입니다.", ext="xlsx", site="Culture"),
    L("택배 보관함 비밀번호 변경 (관리실)", "지하 1층 무인 택배 보관함 관리자 비밀번호가 변경되었습니다. 건물 관리실 전용 문서입니다.", site="GeneralAffairs", lst="Notices"),
    M("퇴근길 러닝 크루 모집", "매주 화요일 19시 한강까지 5km 뛰는 러닝 크루를 모집합니다."),
    F("고객사 계약 현황 대시보드 (영업)", "고객사별 계약 금액, 갱신일, 담당 영업을 정리한 대시보드입니다.", ext="xlsx", site="Sales"),
    L("회의실 모니터 연결 방법", "회의실 TV에 노트북을 연결하려면 테이블의 HDMI 또는 USB-C 케이블을 사용하세요.", site="IT", lst="IT FAQ"),
    F("사내 헌혈 캠페인 결과", "지난달 헌혈 캠페인에 87명이 참여했습니다. 헌혈증은 사내 기부함으로 모읍니다.", site="Culture"),
    M("[보안] 스미싱 문자 주의 - 택배 배송 조회 사칭", "택배 배송 조회를 사칭한 문자가 돌고 있습니다. 링크를 누르지 마세요."),
    F("Quarterly business review deck (Q3)", "Revenue, churn and pipeline by segment for the Q3 business review.", ext="pptx", site="Sales"),
    M("Sales kickoff 2026: agenda and hotel", "The agenda for the two-day kickoff in Busan and the hotel booking code."),
    F("Brand photo shoot call sheet", "Call times, locations and models for next week's brand photo shoot.", site="Marketing"),
    L("Product glossary (English/Korean)", "Approved product terms in English and Korean for marketing copy.", site="Marketing", lst="Glossary"),
]

UNRELATED_POSTS = [
    P("점심 메뉴 추천 좀요 ㅋㅋ 회사 근처 국밥집 어디가 맛있나요", [], "question"),
    P("집 이사하는데 포장이사 업체 추천해주세요 ㅠ 견적이 너무 달라요", [], "question"),
    P("주말에 카드지갑 잃어버렸어요 ㅠ 강남역 근처에서 보신 분", [], "help"),
    P("전세 계약 처음인데 부동산에서 뭐 확인해야 돼요?", [], "question"),
    P("결혼식 사회 봐주실 분 구합니다 ㅎㅎ 밥 잘 사드릴게요", [], "question"),
    P("사진 잘 찍는 분 프로필 사진 좀 부탁드려도 될까요", [], "question"),
    P("넷플릭스 번역 자막 이상한 거 저만 느끼나요 ㅋㅋ", [], "discussion"),
    P("집에서 쓸 의자 추천 좀 해주세요 30만원 이하로", [], "question"),
    P("회의 너무 많아요 ㅠ 다들 하루에 회의 몇 개씩 하세요?", [], "discussion"),
    P("아침 알람 뭐 쓰세요? 도저히 못 일어나겠어요", [], "discussion"),
    P("담배 끊으신 분 팁 좀.. 3일째인데 죽겠네요", [], "discussion"),
    P("어제 야구 보신 분? 9회말 역전 ㅋㅋㅋ", [], "discussion"),
    P("레디스 공부하기 좋은 책 추천해주세요", [], "question"),
    P("카프카 소설 읽어보신 분 있나요? 변신 읽는 중인데 같이 얘기해요", [], "discussion"),
    P("테라폼 자격증 따신 분 후기 부탁드려요", [], "question"),
    P("AWS Summit 서울 가시는 분? 같이 가요", [], "meetup"),
    P("증명사진 잘 찍는 사진관 회사 근처에 있나요", [], "question"),
    P("부모님 환갑 선물 추천해주세요 ㅠ", [], "question"),
    P("전동킥보드 타고 출근하시는 분 있나요? 어디에 세우세요", [], "question"),
    P("이번 주 금요일 팀 회식 장소 추천 받아요 (15명)", [], "question"),
    P("비품함에 간식 채워주시는 분 감사합니다 ㅎㅎ", [], "share"),
    P("점심에 같이 탁구 치실 분~ 지하 1층", [], "meetup"),
    P("회사 근처 안과 추천 부탁드립니다 눈이 계속 충혈돼요", [], "question"),
    P("엑셀 VLOOKUP 질문이요 ㅠ 자꾸 #N/A 떠요", [], "help"),
    P("주말 등산 같이 가실 분~ 북한산 코스", [], "meetup"),
    P("스테이징 DB 쿼리가 느린데 인덱스 문제일까요", ["backend"], "help"),
    P("서버 개발자 채용 공고 공유합니다 주변에 추천 부탁드려요", [], "share"),
    P("로그인 화면 디자인 시안 피드백 부탁드려요", ["design"], "discussion"),
    P("마스크 어디서 사요? 오늘 미세먼지 최악이네요", [], "question"),
    P("DNS 공부하는데 좋은 자료 있나요? 네트워크 기초부터", [], "question"),
    P("국민연금 예상 수령액 조회하는 법 아시는 분", [], "question"),
    P("유연하게 일하는 분위기 좋네요 ㅎㅎ 전 직장이랑 너무 달라서 놀람", [], "discussion"),
    P("이번 달 주말마다 경조사라 지갑이 텅텅 ㅋㅋ", [], "discussion"),
    P("회색 백팩 잃어버렸어요.. 15층 회의실에 두고 온 것 같아요", [], "help"),
    P("사내 카페 딸기라떼 드셔보신 분? 맛있나요", [], "discussion"),
    P("영어 회화 스터디 같이 하실 분 구해요 점심시간", [], "meetup"),
    P("개발자 컨퍼런스 발표자료 공유합니다 (쿠버네티스 아님 ㅎㅎ)", [], "share"),
    P("퇴근하고 한강 러닝 같이 해요~ 초보 환영", [], "meetup"),
    P("팀즈 미팅에 Loop 노트 붙이는 기능 쓰시는 분? 할 일 관리 편한가요", [], "discussion"),
    P("Anyone up for badminton after work on Thursday?", [], "meetup"),
    P("Anyone else reading Kafka's The Castle? Looking for someone to discuss it with", [], "discussion"),
    P("Which moving company did you use for your apartment move in Seoul?", [], "question"),
    P("Lost my AirPods case near the 16F lounge, white with a sticker", [], "help"),
    P("Where do you get passport photos taken near the office?", [], "question"),
    P("Recommendations for a good chair for my home office?", [], "question"),
    P("Great Redis talk at the meetup yesterday, slides in the thread", [], "share"),
    P("How much do people usually give at a Korean colleague's wedding?", [], "question"),
]


# ==========================================================================
# generation
# ==========================================================================

ALT = re.compile(r"\{([^{}]*)\}")
KO_STYLES = {"plain", "casual", "typo", "spacing", "mixed", "keyword", "slang", "chatty"}
POST_CATEGORIES = {"question", "discussion", "share", "help", "meetup"}
Q_CATEGORIES = POST_CATEGORIES | {None}
DOMAINS = ["eng", "it", "hr", "finance", "facilities"]
USERS = ["minji_kim", "jiho_park", "sarah_lee", "daniel_choi", "yuna_jung", "hyunwoo_lee", "seojin_han", "jaewon_oh"]
MAIL_CHARS = string.ascii_letters + string.digits
HANGUL = re.compile(r"[\uac00-\ud7a3]")
LATIN = re.compile(r"[A-Za-z]")


def expand(rng, text):
    def pick(m):
        options = m.group(1).split("|")
        assert len(options) > 1, text
        return rng.choice(options)
    return ALT.sub(pick, text)


def lang_of(text):
    """ko if the text has a real amount of Hangul (a Korean sentence with English terms is ko)"""
    h = len(HANGUL.findall(text))
    if h >= 2:
        return "ko"
    assert h == 0, f"English text with stray Hangul: {text}"
    return "en"


def file_name(title):
    name = re.sub(r"[\\/:*?\"<>|#%()\[\]·,.→'~]+", " ", title)
    name = re.sub(r"\s+", "-", name.strip())
    return urllib.parse.quote(name, safe="-_")


class Urls:
    def __init__(self, rng, taken):
        self.rng = rng
        self.seen = set(taken)
        self.list_ids = {}

    def make(self, doc, site, lst):
        rng = self.rng
        if doc["kind"] == "file":
            name = file_name(doc["title"])
            ext = doc["ext"] or rng.choice(["docx", "docx", "docx", "pdf"])
            user = doc["user"]
            if user is None and rng.random() < 0.1:
                user = rng.choice(USERS)
            if user:
                url = f"https://contoso-my.sharepoint.com/personal/{user}_contoso_com/Documents/{name}.{ext}"
            else:
                url = f"https://contoso.sharepoint.com/sites/{site}/Shared%20Documents/{name}.{ext}"
        elif doc["kind"] == "list_item":
            # ids 500-999: the English set uses 1-480 on its lists
            taken = self.list_ids.setdefault((site, lst), set())
            n = rng.randint(500, 999)
            while n in taken:
                n = rng.randint(500, 999)
            taken.add(n)
            url = f"https://contoso.sharepoint.com/sites/{site}/Lists/{lst.replace(' ', '')}/DispForm.aspx?ID={n}"
        else:
            item = "AAMkA" + "".join(rng.choice(MAIL_CHARS) for _ in range(40)) + "AAA%3D"
            url = f"https://outlook.office365.com/owa/?ItemID={item}&exvsurl=1&viewmodel=ReadMessageItem"
        assert url not in self.seen, url
        self.seen.add(url)
        return url


def english_set():
    """urls, topic names and concept words of the English set, to keep this set apart from it"""
    urls, topics, words = set(), set(), set()
    for half in ("tuning", "heldout"):
        path = os.path.join(HERE, f"{half}.json")
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        urls |= {d["url"] for d in data["m365"]}
        topics |= set(data["split"]["tuning"]) | set(data["split"]["heldout"])
        words |= {w for g in data["concepts"] for w in g}
    return urls, topics, words


def excluded_doc(doc, exclude):
    return any(doc["_title_src"].startswith(x) or doc["title"].startswith(x) for x in exclude)


def excluded_post(post, exclude):
    return any(post["text"].startswith(x) for x in exclude)


def build(english_urls):
    rng = random.Random(SEED)
    urls = Urls(rng, english_urls)

    # 1. documents: topic documents, then distractors (rng used in this fixed order)
    docs = []
    for t in TOPICS:
        for d in t["docs"]:
            site = d.get("site") or t["site"]
            lst = d.get("lst") or t["lst"]
            title, body = expand(rng, d["title"]), expand(rng, d["body"])
            docs.append(dict(kind=d["kind"], title=title, url=urls.make(d, site, lst), body=body, lang=lang_of(title + " " + body),
                             _title_src=d["title"], _topic=None if d["near"] else t["key"], _near=t["key"] if d["near"] else None))
    for d in DISTRACTORS:
        site = d.get("site") or "Intranet"
        lst = d.get("lst") or "Announcements"
        title, body = expand(rng, d["title"]), expand(rng, d["body"])
        docs.append(dict(kind=d["kind"], title=title, url=urls.make(d, site, lst), body=body, lang=lang_of(title + " " + body),
                         _title_src=d["title"], _topic=None, _near=None))

    # 2. posts
    posts = []
    for t in TOPICS:
        for p in t["posts"]:
            text = expand(rng, p["text"])
            posts.append(dict(text=text, tags=p["tags"], category=p["category"], lang=lang_of(text), _topic=t["key"]))
    for p in UNRELATED_POSTS:
        text = expand(rng, p["text"])
        posts.append(dict(text=text, tags=p["tags"], category=p["category"], lang=lang_of(text), _topic=None))

    # 3. shuffle, then number
    rng.shuffle(docs)
    for i, d in enumerate(docs, 1):
        d["id"] = f"kd{i:03d}"
    rng.shuffle(posts)
    for i, p in enumerate(posts, 1):
        p["id"] = f"kp{i:03d}"

    # 4. the split: by topic, stratified by domain, with a generator of its own
    #    (editing texts does not move topics between the halves)
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
    half_of = {k: h for h, ks in split.items() for k in ks}

    # 5. questions with labels, shuffled and numbered over the whole set
    questions = []
    for t in TOPICS:
        tdocs = [d for d in docs if d["_topic"] == t["key"]]
        tposts = [p for p in posts if p["_topic"] == t["key"]]
        for q in t["questions"]:
            for x in q["exclude"]:
                hits = [d for d in tdocs if excluded_doc(d, [x])] + [p for p in tposts if excluded_post(p, [x])]
                assert len(hits) == 1, (t["key"], q["text"], x, len(hits))
            m365 = sorted(d["id"] for d in tdocs if not excluded_doc(d, q["exclude"]))
            rel_posts = sorted(p["id"] for p in tposts if not excluded_post(p, q["exclude"]))
            questions.append(dict(topic=t["key"], half=half_of[t["key"]], style=q["style"], lang=lang_of(q["text"]), text=q["text"],
                                  tags=q["tags"], category=q["category"], m365=m365, posts=rel_posts, agentQueries=q["agentQueries"]))
    rng.shuffle(questions)
    for i, q in enumerate(questions, 1):
        q["id"] = f"kq{i:03d}"

    concepts = [list(t["concept"]) for t in TOPICS]
    return docs, posts, questions, split, concepts


def squash(text):
    """Korean part of a text: shared English terms (error messages, product names) are fine"""
    return re.sub(r"[\sA-Za-z0-9_\-./@%*<>()\[\]?!~,.:'\"]+", "", text)


def longest_common(a, b):
    """length of the longest common substring (spaces removed, lower-cased)"""
    a, b = squash(a), squash(b)
    best = 0
    prev = [0] * (len(b) + 1)
    for i in range(1, len(a) + 1):
        cur = [0] * (len(b) + 1)
        for j in range(1, len(b) + 1):
            if a[i - 1] == b[j - 1]:
                cur[j] = prev[j - 1] + 1
                best = max(best, cur[j])
        prev = cur
    return best


def pairs(questions, posts):
    """cross-language pairs: (question, relevant post) in different languages"""
    lang = {p["id"]: p["lang"] for p in posts}
    out = []
    for q in questions:
        for pid in q["posts"]:
            if lang[pid] != q["lang"]:
                out.append((q, pid, f"{q['lang']}->{lang[pid]}"))
    return out


def validate(docs, posts, questions, split, concepts, english_topics, english_words):
    # sizes
    topics = {t["key"] for t in TOPICS}
    assert len(TOPICS) >= 40 and len(topics) == len(TOPICS)
    assert not topics & english_topics, topics & english_topics
    for t in TOPICS:
        assert 2 <= len(t["docs"]) <= 6, t["key"]
        assert 1 <= len(t["posts"]) <= 4, t["key"]
        assert 2 <= len(t["questions"]) <= 3, t["key"]
        assert t["domain"] in DOMAINS
    ko_docs = [d for d in docs if d["lang"] == "ko"]
    assert len(ko_docs) >= 100, len(ko_docs)
    assert sum(d["lang"] == "en" for d in docs) >= len(TOPICS) - 5
    assert sum(d["_topic"] is None and d["_near"] is None and d["lang"] == "ko" for d in docs) >= 20
    assert sum(d["_near"] is not None for d in docs) >= 15
    assert sum(p["lang"] == "ko" for p in posts) >= 120, sum(p["lang"] == "ko" for p in posts)
    assert sum(p["lang"] == "en" for p in posts) >= 30, sum(p["lang"] == "en" for p in posts)
    ko_q = [q for q in questions if q["lang"] == "ko"]
    en_q = [q for q in questions if q["lang"] == "en"]
    assert len(ko_q) >= 80 and len(en_q) >= 20, (len(ko_q), len(en_q))
    # several topics with a Korean and an English post
    both = [t for t in TOPICS if {lang_of(p["text"]) for p in t["posts"]} == {"ko", "en"}]
    assert len(both) >= 10, len(both)

    # unique ids and urls; labels reference existing ids
    for items, prefix in ((docs, "kd"), (posts, "kp"), (questions, "kq")):
        ids = [x["id"] for x in items]
        assert len(set(ids)) == len(ids) and all(i.startswith(prefix) for i in ids)
    assert len({d["url"] for d in docs}) == len(docs)
    assert len({p["text"] for p in posts}) == len(posts)
    assert len({q["text"] for q in questions}) == len(questions)
    doc_ids, post_ids = {d["id"] for d in docs}, {p["id"] for p in posts}
    dtopic = {d["id"]: d["_topic"] for d in docs}
    ptopic = {p["id"]: p["_topic"] for p in posts}
    alike = []
    for q in questions:
        assert set(q["m365"]) <= doc_ids and set(q["posts"]) <= post_ids, q
        assert q["m365"], ("question without a relevant document", q["text"])
        assert all(dtopic[i] == q["topic"] for i in q["m365"]) and all(ptopic[i] == q["topic"] for i in q["posts"])
        assert (q["style"] == "english") == (q["lang"] == "en"), q
        assert q["lang"] == "en" or q["style"] in KO_STYLES, q
        assert q["category"] in Q_CATEGORIES, q
        assert 2 <= len(q["agentQueries"]) <= 4, q
        if q["lang"] == "ko":   # Korean stems and English terms
            assert any(HANGUL.search(a) for a in q["agentQueries"]) and any(not HANGUL.search(a) for a in q["agentQueries"]), q
        # a question and a relevant Korean post are worded differently
        for pid in q["posts"]:
            p = next(x for x in posts if x["id"] == pid)
            if p["lang"] == "ko" and q["lang"] == "ko":
                n = longest_common(q["text"], p["text"])
                if n > 6:
                    alike.append((n, q["text"], p["text"]))
    assert not alike, "\n".join(f"{n} | {a} | {b}" for n, a, b in alike)
    for p in posts:
        assert p["category"] in POST_CATEGORIES, p
    # every topic document (not near) and every topic post is relevant to some question
    used_docs = {i for q in questions for i in q["m365"]}
    used_posts = {i for q in questions for i in q["posts"]}
    unused = [d["title"] for d in docs if (d["_topic"] is not None) != (d["id"] in used_docs)]
    unused += [p["text"] for p in posts if (p["_topic"] is not None) != (p["id"] in used_posts)]
    assert not unused, ("topic documents/posts relevant to no question", unused)

    # split: every topic in exactly one half, halves balanced
    assert not set(split["tuning"]) & set(split["heldout"])
    assert set(split["tuning"]) | set(split["heldout"]) == topics
    assert abs(len(split["tuning"]) - len(split["heldout"])) <= 1
    prs = pairs(questions, posts)
    for half in ("tuning", "heldout"):
        assert all(q["half"] == half for q in questions if q["topic"] in split[half])
        assert sum(q["lang"] == "ko" and q["half"] == half for q in questions) >= 40, half
        assert sum(q["half"] == half for q, _, _ in prs) >= 20, half
    assert sum(d == "ko->en" for _, _, d in prs) >= 20 and sum(d == "en->ko" for _, _, d in prs) >= 20

    # styles: every Korean style used several times
    for s in KO_STYLES:
        assert sum(q["style"] == s for q in ko_q) >= 5, s

    # concepts: one group per topic, single lower-case tokens, no word in two groups,
    # none of the English set's words, and no Korean word that is a prefix of another
    # group's Korean word (a fake model may match Korean stems by prefix)
    assert len(concepts) == len(TOPICS)
    seen = {}
    for gi, g in enumerate(concepts):
        assert any(HANGUL.search(w) for w in g) and any(not HANGUL.search(w) for w in g), g
        for w in g:
            assert w == w.lower() and " " not in w, w
            assert w not in seen, f"concept word {w!r} in two groups"
            assert w not in english_words, f"concept word {w!r} is in the English set"
            seen[w] = gi
    korean_words = [(w, seen[w]) for w in seen if HANGUL.search(w)] + [(w, -1) for w in english_words if HANGUL.search(w)]
    for a, ga in korean_words:
        for b, gb in korean_words:
            if ga != gb and a != b and b.startswith(a):
                raise AssertionError(f"Korean concept word {a!r} is a prefix of {b!r} in another group")


def write(docs, posts, questions, split, concepts):
    out = {
        "seed": SEED,
        "split": split,
        "concepts": concepts,
        "m365": [{k: d[k] for k in ("id", "kind", "title", "url", "body", "lang")} for d in docs],
        "posts": [{k: p[k] for k in ("id", "text", "tags", "category", "lang")} for p in posts],
        "questions": [{k: q[k] for k in ("id", "topic", "half", "style", "lang", "text", "tags", "category", "m365", "posts", "agentQueries")}
                      for q in sorted(questions, key=lambda q: q["id"])],
    }
    with open(OUT, "w", encoding="utf-8", newline="\n") as f:
        f.write(json.dumps(out, ensure_ascii=False, indent=1) + "\n")
    return os.path.getsize(OUT)


def stats(docs, posts, questions, split, size):
    def count(items, **kw):
        return sum(all(x[k] == v for k, v in kw.items()) for x in items)
    print(f"topics {len(TOPICS)} (tuning {len(split['tuning'])}, heldout {len(split['heldout'])})")
    print(f"documents {len(docs)}: ko {count(docs, lang='ko')}, en {count(docs, lang='en')}; "
          f"{sum(d['_near'] is not None for d in docs)} near misses, "
          f"{sum(d['_topic'] is None and d['_near'] is None for d in docs)} distractors")
    print(f"posts {len(posts)}: ko {count(posts, lang='ko')}, en {count(posts, lang='en')}; "
          f"{sum(p['_topic'] is None for p in posts)} unrelated")
    prs = pairs(questions, posts)
    for half in ("tuning", "heldout"):
        qs = [q for q in questions if q["half"] == half]
        hp = [d for q, _, d in prs if q["half"] == half]
        print(f"{half}: questions ko {count(qs, lang='ko')}, en {count(qs, lang='en')}; "
              f"pairs ko->en {hp.count('ko->en')}, en->ko {hp.count('en->ko')}; "
              f"{sum(bool(q['tags']) for q in qs)} tagged, {sum(not q['posts'] for q in qs)} without a similar post")
    styles = {}
    for q in questions:
        styles[q["style"]] = styles.get(q["style"], 0) + 1
    print("styles", dict(sorted(styles.items())))
    print(f"{OUT}: {size} bytes")


def review(docs, posts, questions, n, seed):
    byid = {d["id"]: d for d in docs}
    pbyid = {p["id"]: p for p in posts}
    for q in random.Random(seed).sample(sorted(questions, key=lambda q: q["id"]), n):
        print(f"== {q['id']} [{q['topic']}/{q['style']}/{q['half']}] {q['text']}")
        for i in q["m365"]:
            print(f"   D {i} {byid[i]['lang']} {byid[i]['title']}")
        for i in q["posts"]:
            print(f"   P {i} {pbyid[i]['lang']} {pbyid[i]['text']}")
        if not q["posts"]:
            print("   (no similar post)")


def main(argv):
    english_urls, english_topics, english_words = english_set()
    docs, posts, questions, split, concepts = build(english_urls)
    validate(docs, posts, questions, split, concepts, english_topics, english_words)
    size = write(docs, posts, questions, split, concepts)
    stats(docs, posts, questions, split, size)
    if "--review" in argv:
        review(docs, posts, questions, 20, 7)


if __name__ == "__main__":
    main(sys.argv[1:])

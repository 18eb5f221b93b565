# GPU Node Lab — 한국어 메시지 (기본 언어). en.ftl과 같은 id를 모두 가져야 합니다.
app-title = GPU 노드 실습
app-subtitle = 쿠버네티스 GPU 노드 장애를 단계별로
lang-switch = 언어
lang-ko = 한국어
lang-en = English
steps-nav = 실습 단계
step-1-title = containerd 기본 설정
step-2-title = NVIDIA 드롭인과 테이블 충돌
step-3-title = check-runtime.sh: 로드된 설정으로 판정하기
step-4-title = SIGHUP이 아니라 재시작
step-5-title = RuntimeClass
step-6-title = GPU 광고와 스케줄러의 판정
step-7-title = 타임 슬라이싱 좌석
step-8-title = 롤아웃 정체와 장애 보고서
step-position = { $n } / 8 단계
not-built-yet = 아직 만들지 않았습니다. 이 단계는 이슈 #{ $issue }에서 만들어집니다. 그 전까지는 아무것도 시뮬레이션하지 않습니다.
panic-report = 실습에 내부 오류가 발생해 멈췄습니다. 페이지를 새로 고치세요. 저장된 작업은 남아 있습니다. 자세히: { $details }

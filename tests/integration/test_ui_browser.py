"""The memory inspector in a real headless browser: Debian's chromium driven through chromedriver.

A real `epistream api` serves the bundled demo (hash embedder) and the inspector's static pages;
the browser signs in with a key and reads the pages as a person would. Chromium is the system's
(``/usr/bin/chromium``, installed by ``./dev test``), never one a tool downloads, with the flags
this machine's closed network needs and a fresh profile.

``EPISTREAM_UI_SCREENSHOTS=<folder>`` also writes the main pages as PNG there (how the screenshots
in docs/ are made: ``EPISTREAM_UI_SCREENSHOTS=docs .venv/bin/python -m pytest tests/integration/test_ui_browser.py``).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

from epistream.api.auth import hash_key_sha256

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

BIN = Path(sys.executable).parent
READER, ASSERTER, NO_READ, OTHER = (f"eps_ui_{name}_" + "k" * 24 for name in ("reader", "asserter", "noread", "other"))
CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")


@dataclass
class Served:
    base: str
    berlin: dict[str, object]
    confidences: list[float]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    root = tmp_path_factory.mktemp("ui")
    env = {k: v for k, v in os.environ.items() if not k.startswith("EPISTREAM_")}
    env.update({"EPISTREAM_EMBEDDER": "hash", "EPISTREAM_DATA_DIR": str(root / "data")})
    demo = subprocess.run([str(BIN / "epistream"), "demo", "--embedder", "hash", "--json", "--data-dir",
                           str(root / "data")], env=env, cwd=root,
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert demo.returncode == 0, demo.stderr[-2000:]
    keys = {"keys": [
        {"id": "reader", "tenant_id": "acme", "permissions": ["read"], "sha256": hash_key_sha256(READER)},
        {"id": "operator", "tenant_id": "acme", "permissions": ["read", "assert"], "owners": ["alice"], "kind": "human",
         "sha256": hash_key_sha256(ASSERTER)},
        {"id": "noread", "tenant_id": "acme", "permissions": ["write"], "sha256": hash_key_sha256(NO_READ)},
        {"id": "other", "tenant_id": "globex", "permissions": ["read"], "sha256": hash_key_sha256(OTHER)},
    ]}  # fmt: skip
    (root / "keys.json").write_text(json.dumps(keys))
    env["EPISTREAM_API_KEYS_FILE"] = str(root / "keys.json")
    port = _free_port()
    log = (root / "api.log").open("w")
    proc = subprocess.Popen([str(BIN / "epistream"), "api", "--port", str(port)], env=env, cwd=root, stdout=log,
                            stderr=subprocess.STDOUT)  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            assert proc.poll() is None, (root / "api.log").read_text()
            try:
                if httpx.get(f"{base}/v1/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, (root / "api.log").read_text()
            time.sleep(0.3)
        auth = {"Authorization": f"Bearer {ASSERTER}"}
        world = httpx.get(f"{base}/v1/world-context", params={"owner_id": "alice"}, headers=auth).json()
        berlin = next(f for f in world["facts"] if f["object"] == "Berlin")
        # Some history to look at: the owner confirms the move twice, then corrects it once.
        confidences = [berlin["label"]["confidence"]]
        for route, signal in (("reinforce", "CONFIRMED"), ("reinforce", "REFERENCED"), ("penalize", "CORRECTED")):
            reply = httpx.post(f"{base}/v1/nodes/{berlin['node_id']}/{route}", json={"signal": signal},
                               headers={**auth, "Idempotency-Key": str(uuid.uuid4())})  # fmt: skip
            assert reply.status_code == 200, reply.text
            confidences.append(reply.json()["node"]["confidence"])
        yield Served(f"{base}/ui/", berlin, confidences)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        log.close()


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebDriver]:
    assert CHROMIUM.exists() and CHROMEDRIVER.exists(), "./dev test installs Debian's chromium and chromium-driver"
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", "--window-size=1360,1000",
                 f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}"):  # fmt: skip
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


def _wait(driver: WebDriver, condition: object, timeout: float = 30) -> object:
    return WebDriverWait(driver, timeout).until(condition)  # type: ignore[arg-type]


def _ready(driver: WebDriver, page: str) -> None:
    _wait(driver, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == page)


def _sign_in(driver: WebDriver, served: Served, key: str) -> None:
    """In a new tab: sessionStorage (where the page keeps the key) starts empty."""
    old = driver.current_window_handle
    driver.switch_to.new_window("tab")
    new = driver.current_window_handle
    driver.switch_to.window(old)
    driver.close()
    driver.switch_to.window(new)
    driver.get(served.base)
    field = driver.find_element(By.ID, "key")
    assert field.is_displayed()
    field.send_keys(key)
    driver.find_element(By.CSS_SELECTOR, "#login-form button").click()


def _screenshot(driver: WebDriver, name: str, into: Path) -> Path:
    height = int(driver.execute_script("return document.body.scrollHeight"))  # type: ignore[arg-type]
    driver.set_window_size(1360, min(3000, max(800, height + 40)))
    time.sleep(0.2)
    out = into / f"ui-{name}.png"
    assert driver.save_screenshot(str(out))
    driver.set_window_size(1360, 1000)
    for extra in filter(None, [os.environ.get("EPISTREAM_UI_SCREENSHOTS")]):
        Path(extra).mkdir(parents=True, exist_ok=True)
        (Path(extra) / out.name).write_bytes(out.read_bytes())
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    return out


def _texts(driver: WebDriver, css: str) -> list[str]:
    return [e.text for e in driver.find_elements(By.CSS_SELECTOR, css)]


def test_world_view_shows_facts_conflicts_side_by_side_and_proposals(browser: WebDriver, served: Served,
                                                                     tmp_path: Path) -> None:  # fmt: skip
    _sign_in(browser, served, READER)
    _ready(browser, "world")
    owners = [o.get_attribute("value") for o in browser.find_elements(By.CSS_SELECTOR, "#owner option")]
    assert owners == ["alice", "bob", "carol"]
    facts = " ".join(_texts(browser, "#world-facts .claim"))
    assert "user · lives_in · Berlin" in facts and "I moved from Paris to Berlin." in facts
    sides = browser.find_elements(By.CSS_SELECTOR, "#world-conflicts .conflict .sides .claim")
    assert sorted(s.find_element(By.CSS_SELECTOR, ".triple").text for s in sides) == [
        "user · likes · NOT coffee", "user · likes · coffee",
    ]
    proposals = " ".join(_texts(browser, "#world-proposals .claim"))
    assert "user · lives_in · Lisbon" in proposals and "HYPOTHETICAL" in proposals
    _screenshot(browser, "world", tmp_path)


def test_claim_view_shows_the_quote_in_its_message_and_the_history(browser: WebDriver, served: Served,
                                                                   tmp_path: Path) -> None:  # fmt: skip
    _sign_in(browser, served, READER)
    _ready(browser, "world")
    browser.find_element(By.CSS_SELECTOR, f'#world-facts a[data-node="{served.berlin["node_id"]}"]').click()
    _ready(browser, "claim")
    assert browser.find_element(By.CSS_SELECTOR, "h1.claim-title").text == "user · lives_in · Berlin"
    assert browser.find_element(By.CSS_SELECTOR, "#evidence blockquote mark").text == "I moved from Paris to Berlin."
    caption = browser.find_element(By.CSS_SELECTOR, "#evidence figcaption").text
    assert caption.startswith("user (user) · 2026-09-21") and "event demo-a-" in caption
    rows = browser.find_elements(By.CSS_SELECTOR, "#operations tbody tr")
    ops = [row.find_elements(By.TAG_NAME, "td") for row in rows]
    kinds = [cells[1].text for cells in ops]
    assert kinds.count("REINFORCE") == 2 and kinds.count("PENALTY") == 1 and kinds[0] == "ASSERT"
    assert {cells[2].text for cells in ops if cells[1].text == "REINFORCE"} == {"operator (HUMAN_USER)"}
    points = browser.find_elements(By.CSS_SELECTOR, "#confidence svg circle")
    assert len(points) == 4  # asserted, two reinforcements, one penalty
    titles = [p.find_element(By.TAG_NAME, "title").get_attribute("textContent") for p in points]
    assert [float(t.rsplit(": ", 1)[1]) for t in titles] == [round(c, 2) for c in served.confidences]
    chain = browser.find_element(By.CSS_SELECTOR, "#supersedence .chain").text
    assert chain.startswith("replaces “I live in Paris and I work at Acme Robotics.”") and "SUPERSEDED" in chain
    _screenshot(browser, "claim", tmp_path)

    browser.find_element(By.CSS_SELECTOR, "#supersedence .chain a").click()  # follow the chain back
    _wait(browser, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "claim"
          and "Paris" in d.find_element(By.CSS_SELECTOR, "h1.claim-title").text)  # fmt: skip
    assert "replaced by “I moved from Paris to Berlin.”" in browser.find_element(By.CSS_SELECTOR, "#supersedence").text
    lifecycle = browser.find_element(By.CSS_SELECTOR, "#lifecycle").text
    assert "SUPERSEDED (replaced by a newer claim)" in lifecycle


def test_query_runs_both_modes_side_by_side_with_every_exclusion_reason(browser: WebDriver, served: Served,
                                                                        tmp_path: Path) -> None:  # fmt: skip
    _sign_in(browser, served, READER)
    _ready(browser, "world")
    browser.get(served.base + "#/query")
    _ready(browser, "query")
    browser.find_element(By.ID, "query").send_keys("does she live in Paris, Berlin or Lisbon")
    browser.find_element(By.CSS_SELECTOR, ".query-form button").click()
    _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#results[data-done] #exclusions"))
    default = browser.find_element(By.ID, "mode-default").text
    explicit = browser.find_element(By.ID, "mode-explicit").text
    assert "user · lives_in · Berlin" in default and "user · lives_in · Paris" not in default
    assert "user · lives_in · Paris" in explicit and "SUPERSEDED" in explicit
    quotes = browser.find_elements(By.CSS_SELECTOR, "#mode-default .excerpt")
    assert quotes and all("a quote, not a fact" in q.text for q in quotes)  # excerpts shown as what was said
    rows = {r.find_elements(By.TAG_NAME, "td")[0].text: r.find_elements(By.TAG_NAME, "td")[2].text
            for r in browser.find_elements(By.CSS_SELECTOR, "#exclusions tbody tr")}  # fmt: skip
    assert rows["user · lives_in · Paris"] == "lifecycle_filtered:superseded"
    assert all(reason for reason in rows.values())  # every exclusion says why
    assert "Maybe I will learn Rust this winter." in " ".join(rows)  # ranked in neither column, still named
    _screenshot(browser, "query", tmp_path)


def test_analytics_plots_the_operation_log(browser: WebDriver, served: Served, tmp_path: Path) -> None:
    _sign_in(browser, served, READER)
    _ready(browser, "world")
    browser.get(served.base + "#/analytics")
    _ready(browser, "analytics")
    for card in ("ops-by-type", "rates", "confidence", "rejections", "lag"):
        assert browser.find_elements(By.CSS_SELECTOR, f"#{card} svg"), card
    totals = browser.find_element(By.CSS_SELECTOR, ".totals").text
    assert "1 contradictions noted" in totals and "3 supersedences" in totals
    legend = _texts(browser, "#ops-by-type svg text.legend")
    assert {"ASSERT", "REINFORCE", "PENALTY", "SUPERSEDENCE_APPLIED", "CONTRADICTION_NOTED"} <= set(legend)
    assert "secret_value" in _texts(browser, "#rejections svg text.label")
    ranges = _texts(browser, "#confidence svg text.label")
    assert "HYPOTHETICAL (2)" in ranges and "CONDITIONAL (1)" in ranges
    _screenshot(browser, "analytics", tmp_path)


@pytest.mark.parametrize("key", ["eps_not_a_key_at_all_000000", NO_READ])
def test_an_unauthorised_key_sees_nothing(browser: WebDriver, served: Served, key: str) -> None:
    _sign_in(browser, served, key)
    error = _wait(browser, lambda d: d.find_element(By.ID, "login-error") if d.find_element(
        By.ID, "login-error").is_displayed() else None)  # fmt: skip
    assert "not authorised" in error.text  # type: ignore[attr-defined]
    assert not browser.find_element(By.ID, "nav").is_displayed()
    assert browser.find_element(By.ID, "view").text == ""
    for word in ("Berlin", "coffee", "alice"):
        assert word not in browser.find_element(By.TAG_NAME, "body").text
    browser.get(served.base + "#/claim/" + str(served.berlin["node_id"]))  # a deep link does not help
    time.sleep(0.5)
    assert "Berlin" not in browser.find_element(By.TAG_NAME, "body").text


def test_a_key_of_another_tenant_sees_no_owner_and_no_claim(browser: WebDriver, served: Served) -> None:
    _sign_in(browser, served, OTHER)
    _ready(browser, "world")
    assert browser.find_elements(By.CSS_SELECTOR, "#owner option") == []
    assert "sees no owner" in browser.find_element(By.ID, "view").text
    browser.get(served.base + "#/claim/" + str(served.berlin["node_id"]))
    _ready(browser, "claim")
    assert "node_not_found" in browser.find_element(By.ID, "view").text
    assert "Berlin" not in browser.find_element(By.TAG_NAME, "body").text

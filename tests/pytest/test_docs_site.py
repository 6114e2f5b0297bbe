"""The dbt docs site renders in a real headless browser: model list and cdc_current's lineage graph.

`make docs-check` runs `cdc-dbt docs generate` into its own target folder and points CDC_DOCS_DIR
at it; this test serves that folder on 127.0.0.1 with http.server, drives Debian's chromium with
Selenium through Debian's chromedriver (package chromium-driver; Selenium Manager is bypassed, so
nothing is downloaded) and keeps screenshots in artifacts/docs/.
"""

from __future__ import annotations

import functools
import json
import os
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from selenium import webdriver  # selenium, in the dev extras
from selenium.common.exceptions import TimeoutException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.wait import WebDriverWait

pytestmark = pytest.mark.docs

PROJECT_DIR = Path(__file__).resolve().parents[2]
ARTIFACTS_DIR = Path(os.environ.get("CDC_DOCS_ARTIFACTS", PROJECT_DIR / "artifacts" / "docs"))
CHROMIUM = os.environ.get("CDC_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CDC_CHROMEDRIVER", "/usr/bin/chromedriver")
TIMEOUT = 60.0  # seconds, for every wait below
CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--window-size=1600,1000",
]


# ---------------------------------------------------------------------------------------- inputs
@pytest.fixture(scope="module")
def docs_dir() -> Path:
    value = os.environ.get("CDC_DOCS_DIR")
    if not value:
        pytest.fail("CDC_DOCS_DIR is not set: run `make docs-check`, which generates the docs "
                    "(cdc-dbt docs generate) and points CDC_DOCS_DIR at their target folder.")
    folder = Path(value)
    missing = [name for name in ("index.html", "manifest.json", "catalog.json") if not (folder / name).is_file()]
    if missing:
        pytest.fail(f"CDC_DOCS_DIR={folder} lacks {', '.join(missing)}: `cdc-dbt docs generate` "
                    "with DBT_TARGET_PATH set to that folder should have written them.")
    return folder


@pytest.fixture(scope="module")
def manifest(docs_dir: Path) -> dict:
    return json.loads((docs_dir / "manifest.json").read_text(encoding="utf-8"))


def project_models(manifest: dict) -> dict[str, dict]:
    """Enabled models of this project, by unique_id."""
    project = manifest["metadata"]["project_name"]
    return {uid: node for uid, node in manifest["nodes"].items()
            if node["resource_type"] == "model" and node["package_name"] == project}


# What the docs lineage graph draws (not tests, macros, ...).
GRAPH_KINDS = ("model.", "seed.", "source.", "snapshot.")


def upstream_of(manifest: dict, unique_id: str) -> set[str]:
    """Every model, seed, source and snapshot upstream of unique_id (transitively), per the manifest."""
    seen: set[str] = set()
    to_visit = [unique_id]
    while to_visit:
        node = manifest["nodes"].get(to_visit.pop(), {})  # sources (manifest["sources"]) have no parents
        for parent in node.get("depends_on", {}).get("nodes", []):
            if parent.startswith(GRAPH_KINDS) and parent not in seen:
                seen.add(parent)
                to_visit.append(parent)
    return seen


# -------------------------------------------------------------------------------- static server
class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


@pytest.fixture(scope="module")
def site_url(docs_dir: Path):
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(docs_dir)))
    thread = threading.Thread(target=server.serve_forever, name="docs-http", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/index.html"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


# ------------------------------------------------------------------------------ browser (Selenium)
class Page:
    """The page of a Selenium-driven chromium, with the few steps the checks need."""

    def __init__(self, driver: webdriver.Chrome):
        self.driver = driver

    def evaluate(self, expression: str):
        """The value of a JS expression (a Promise is awaited)."""
        try:
            return self.driver.execute_script(f"return ({expression});")
        except WebDriverException as exc:
            pytest.fail(f"JavaScript failed: {expression}\n{exc.msg}")

    def errors(self) -> list[str]:
        """The page's errors so far (uncaught exceptions, failed loads), from chromedriver's browser log."""
        return [entry["message"] for entry in self.driver.get_log("browser") if entry["level"] == "SEVERE"]

    def wait_for(self, expression: str, what: str, timeout: float = TIMEOUT):
        """Poll a JS expression until it is truthy; fail naming `what` after `timeout` seconds."""
        try:
            return WebDriverWait(self.driver, timeout, poll_frequency=0.25).until(
                lambda _: self.evaluate(expression))
        except TimeoutException:
            shot = ARTIFACTS_DIR / "failure.png"
            self.screenshot(shot)
            pytest.fail(f"timed out after {timeout:.0f} s waiting for {what} "
                        f"(last value: {self.evaluate(expression)!r}); page is {self.driver.current_url}; "
                        f"screenshot in {shot}; page errors: {self.errors()[-5:] or 'none'}")

    def navigate(self, url: str) -> None:
        self.driver.get(url)

    def click(self, css: str) -> None:
        """A real click (the element must be displayed and not covered), as a user's."""
        self.driver.find_element(By.CSS_SELECTOR, css).click()

    def screenshot(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        if not self.driver.save_screenshot(str(path)):
            pytest.fail(f"chromium took no screenshot for {path}")


@pytest.fixture(scope="module")
def page(tmp_path_factory, site_url):
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not os.access(path, os.X_OK):
            pytest.fail(f"{path} is missing: `make browser` installs Debian's {package}.")
    ARTIFACTS_DIR.mkdir(parents=True, exist_ok=True)
    for stale in ARTIFACTS_DIR.glob("*.png"):  # screenshots of an earlier run would mislead
        stale.unlink()
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    log_path = tmp_path_factory.mktemp("chromedriver") / "chromedriver.log"
    try:  # a driver path given: Selenium Manager is skipped (it would download drivers)
        driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER, log_output=str(log_path)))
    except WebDriverException as exc:
        log = log_path.read_text(errors="replace")[-4000:] if log_path.is_file() else ""
        pytest.fail(f"chromedriver could not start chromium: {exc.msg}\n{log}")
    try:
        driver.set_script_timeout(TIMEOUT)
        driver.set_page_load_timeout(TIMEOUT)
        # a 1600x1000 viewport (--window-size sizes the window, whose frame takes part of it)
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": 1600, "height": 1000, "deviceScaleFactor": 1, "mobile": False})
        yield Page(driver)
    finally:
        driver.quit()


# ---------------------------------------------------------------------------------------- checks
# The Project tab of the sidebar (the docs app renders the whole tree; collapsed folders are hidden).
PROJECT_TREE = ("[...document.querySelectorAll('div.menu')]"
                ".find(d => d.getAttribute('ng-show') == \"nav_selected == 'project'\")")
# The live cytoscape instance of the lineage graph (cytoscape registers it on its container).
CY = "((document.getElementById('cy') || {})._cyreg || {}).cy"
CORE_MODELS = ("int_cdc__change_events", "cdc_current", "cdc_history")


def open_site(page: Page, url: str) -> None:
    """A full load (not just a hash change) of `url`, waiting until the docs app has its tree."""
    page.navigate("about:blank")
    page.wait_for("location.href == 'about:blank'", "about:blank")
    page.navigate(url)
    page.wait_for(f"document.readyState == 'complete' && {PROJECT_TREE} && "
                  f"{PROJECT_TREE}.querySelectorAll('a.menu-node').length > 0",
                  "the docs app to load manifest.json/catalog.json and render its project tree")


def test_site_lists_the_models(page: Page, site_url: str, manifest: dict):
    models = {node["name"]: uid for uid, node in project_models(manifest).items()}
    missing_core = [name for name in CORE_MODELS if name not in models]
    assert not missing_core, f"manifest.json lacks the core models {missing_core}; it has {sorted(models)}"
    assert any(name.startswith("stg_") for name in models), f"no staging model in manifest.json: {sorted(models)}"

    open_site(page, site_url + "#!/overview")
    in_tree = set(page.evaluate(f"[...{PROJECT_TREE}.querySelectorAll('a.menu-node')].map(a => a.dataset.navUniqueId)"))
    assert not set(models.values()) - in_tree, (
        f"the project tree lacks models {sorted(set(models.values()) - in_tree)}")

    # Open every folder that holds a model (a user's clicks), so the names are on screen, then read them.
    expand = f"""(() => {{ let clicked = 0;
        for (const a of {PROJECT_TREE}.querySelectorAll('a.menu-tree')) {{
            const list = a.parentElement.querySelector(':scope > ul');
            if (a.offsetParent !== null && list && list.offsetParent === null
                && list.querySelector('a.menu-node[data-nav-unique-id^="model."]')) {{ a.click(); clicked++; }}
        }}
        return clicked; }})()"""
    visible = ("[...document.querySelectorAll('a.menu-node')].filter(a => a.offsetParent !== null"
               " && a.dataset.navUniqueId.startsWith('model.')).map(a => a.innerText.replace(/\\s+/g, ''))")
    deadline = time.monotonic() + TIMEOUT
    while page.evaluate(expand) and time.monotonic() < deadline:
        time.sleep(0.2)
    shown = set(page.wait_for(f"(() => {{ const v = {visible}; return v.length >= {len(models)} && v; }})()",
                              f"all {len(models)} models to be visible in the expanded project tree"))
    assert set(models) <= shown, f"models not shown in the sidebar: {sorted(set(models) - shown)}"
    page.screenshot(ARTIFACTS_DIR / "landing.png")


def test_cdc_current_lineage_graph_renders(page: Page, site_url: str, manifest: dict):
    project = manifest["metadata"]["project_name"]
    target = f"model.{project}.cdc_current"
    assert target in manifest["nodes"], f"{target} is not in manifest.json"
    parents = {uid for uid in manifest["nodes"][target]["depends_on"]["nodes"] if uid.startswith(GRAPH_KINDS)}
    upstream = upstream_of(manifest, target)
    assert f"model.{project}.int_cdc__change_events" in upstream, (
        f"manifest.json: int_cdc__change_events is not upstream of cdc_current ({sorted(upstream)})")
    assert any(uid.startswith(f"model.{project}.stg_") for uid in upstream), (
        f"manifest.json: no staging model upstream of cdc_current ({sorted(upstream)})")
    # Downstream: the typed per-table models built from cdc_current, if any.
    downstream = {uid for uid, node in manifest["nodes"].items()
                  if uid.startswith(("model.", "snapshot.")) and target in upstream_of(manifest, uid)}

    open_site(page, f"{site_url}#!/model/{target}")
    page.wait_for("[...document.querySelectorAll('h1')].some(h => h.innerText.includes('cdc_current'))",
                  "the cdc_current model page")

    # The launcher button ("View Lineage Graph") opens the model's graph in the sidebar: it and its parents.
    page.wait_for("document.querySelector('a[title=\"View Lineage Graph\"]')", "the View Lineage Graph button")
    page.click('a[title="View Lineage Graph"]')
    node_ids = f"{CY}.nodes().map(n => n.id())"
    sidebar = page.wait_for(
        f"(() => {{ const ids = {CY} ? {node_ids} : []; "
        f"return {json.dumps(sorted(parents | {target}))}.every(id => ids.includes(id)) && ids; }})()",
        "the sidebar lineage graph to hold cdc_current and its parents")
    page.screenshot(ARTIFACTS_DIR / "cdc_current_lineage_sidebar.png")

    # "View Fullscreen" expands it to +cdc_current+: everything upstream (landing sources, staging,
    # int_cdc__change_events, ...) and downstream (typed models).
    page.click('a[ng-click="showExpanded()"]')
    expected = sorted(upstream | downstream | {target})
    nodes = page.wait_for(
        f"(() => {{ const ids = {CY} ? {node_ids} : []; "
        f"return {json.dumps(expected)}.every(id => ids.includes(id)) && ids; }})()",
        f"the full lineage graph of cdc_current ({len(expected)} models)")
    assert len(nodes) > len(sidebar), f"the expanded graph shows no more than the sidebar one: {nodes}"
    assert "g_i=%2Bcdc_current%2B" in page.evaluate("location.href"), page.evaluate("location.href")

    # Every manifest edge between the shown models is drawn.
    edges = {tuple(edge) for edge in page.evaluate(f"{CY}.edges().map(e => [e.source().id(), e.target().id()])")}
    wanted = {(parent, uid) for uid in expected
              for parent in manifest["nodes"].get(uid, {}).get("depends_on", {}).get("nodes", [])
              if parent in expected}
    assert wanted <= edges, f"edges missing from the lineage graph: {sorted(wanted - edges)}"

    # Laid out (nodes spread over the canvas, positions settled) and painted (non-blank canvas pixels).
    positions = f"JSON.stringify({CY}.nodes().map(n => [Math.round(n.position('x')), Math.round(n.position('y'))]))"
    page.wait_for(f"""(async () => {{
            const before = {positions};
            await new Promise(r => setTimeout(r, 500));
            const now = {positions};
            return now === before && new Set(JSON.parse(now).map(p => p.join(','))).size === {CY}.nodes().length;
        }})()""", "the graph layout to settle with every node at its own position")
    painted = page.wait_for(
        """(() => { let n = 0;
            for (const c of document.querySelectorAll('#cy canvas')) {
                if (!c.width || !c.height) continue;
                const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
                for (let i = 3; i < d.length; i += 4) if (d[i]) n++;
            }
            return n > 2000 && n; })()""",
        "the lineage graph's canvas to have drawn pixels")
    page.screenshot(ARTIFACTS_DIR / "cdc_current_lineage.png")
    print(f"lineage graph of cdc_current: {len(nodes)} nodes, {len(edges)} edges, {painted} painted pixels: "
          + ", ".join(sorted(n.split(".")[-1] for n in nodes)))

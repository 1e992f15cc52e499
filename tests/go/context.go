// Context mode: build each file's render context the way BKE's controller does and
// render a version directory with it, so calico-render's --config path can be compared
// with it byte for byte.
//
// Usage: render context CLUSTER_JSON NODES_JSON VERSION_DIR OUT_DIR
//
// The BKECluster is first defaulted as BKE's mutating webhook defaults it
// (common/cluster/initialize/defaults.go and webhooks/capbke/bkecluster.go), unless
// the environment sets BKE_AS_WRITTEN=1 (calico-render's --no-admission-defaults).
//
// CLUSTER_JSON is a BKECluster object and NODES_JSON a list of BKENode objects, both
// converted from YAML to JSON by the test (Go's standard library has no YAML). Every
// *.yaml file below VERSION_DIR is rendered (a path containing "noexecute" is copied)
// and written to OUT_DIR under its relative path. The rules are implemented here independently
// of calico-render, from the controller's behaviour as bke-context.md describes it.
//
// The environment's BKE_ADDON names the addon (default calico): it must be listed in the
// BKECluster, except bkeagent and clusterextra, which the controller installs itself
// with params it builds. What the controller adds for particular addons
// (enhanceCommonParamForSpecialAddons: nodelocaldns, cluster-api, bocoperator, fabric;
// cluster-api's CA bundles; the agent's launcher; the node scripts) is built here too;
// the values it reads from a live cluster are calico-render's labelled placeholders.
package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/template"
)

func init() {
	if len(os.Args) >= 2 && os.Args[1] == "context" {
		if len(os.Args) != 6 {
			fmt.Fprintln(os.Stderr, "usage: render context CLUSTER_JSON NODES_JSON VERSION_DIR OUT_DIR")
			os.Exit(2)
		}
		if err := runContext(os.Args[2], os.Args[3], os.Args[4], os.Args[5]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
}

type object = map[string]interface{}

func readJSON(path string, into interface{}) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return dec.Decode(into)
}

// get walks nested objects; a missing step gives nil.
func get(o interface{}, keys ...string) interface{} {
	for _, k := range keys {
		m, ok := o.(object)
		if !ok {
			return nil
		}
		o = m[k]
	}
	return o
}

// str prints a scalar as the API would hold it in a string field.
func str(v interface{}) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case bool:
		if x {
			return "true"
		}
		return "false"
	case json.Number:
		return string(x)
	}
	return fmt.Sprint(v)
}

type node struct {
	ip       string
	roles    []string
	hostname string
	port     string
	username string
	password string
}

func (n node) has(role string) bool {
	for _, r := range n.roles {
		if r == role {
			return true
		}
	}
	return false
}

func count(nodes []node, role string) int {
	c := 0
	for _, n := range nodes {
		if n.has(role) {
			c++
		}
	}
	return c
}

// registry joins domain/ip/port: 443 is dropped, a domain wins over an ip, and a
// domain plus an ip without a port give nothing.
func registry(domain, ip, port string) string {
	switch {
	case port != "" && (domain != "" || ip != ""):
		host := domain
		if host == "" {
			host = ip
		}
		if port == "443" {
			return host
		}
		return host + ":" + port
	case port == "" && domain != "" && ip == "":
		return domain
	case port == "" && domain == "" && ip != "":
		return ip
	}
	return ""
}

func tenthAddress(subnet string) (string, error) {
	if subnet == "10.96.0.0/16" {
		return "10.96.0.10", nil
	}
	_, ipnet, err := net.ParseCIDR(subnet)
	if err != nil {
		return "", err
	}
	n := new(big.Int).Add(new(big.Int).SetBytes(ipnet.IP.To16()), big.NewInt(10)).Bytes()
	n = append(make([]byte, net.IPv6len), n...)
	ip := net.IP(n[len(n)-net.IPv6len:])
	if !ipnet.Contains(ip) {
		return "", fmt.Errorf("subnet %s too small", subnet)
	}
	return ip.String(), nil
}

func commonParams(cluster object, nodes []node) (object, error) {
	p := object{
		"replicas": 1, "kubeConfigDir": "/etc/kubernetes", "ipModVersion": "ipv4",
		"apiServerSrcPort": 6443, "podSubnet": "10.250.0.0/16", "serviceSubnet": "10.96.0.0/16",
		"dnsIP": "10.96.0.10", "dnsDomain": "cluster.local", "ingressReplicas": 1,
		"etcdEndpoints": "", "version": "v1.0.0", "kubeletDataRoot": "/var/lib/kubelet",
		"dockerDataRoot": "/var/lib/docker", "k8sVersion": "v1.34.3-of.1",
		"masterReplicas": "1", "workerReplicas": "1", "namespace": "cluster-system",
		"clusterNetworkMode": "", "product": "boc",
	}
	cfg := get(cluster, "spec", "clusterConfig")
	if cfg == nil {
		return p, nil
	}
	c := get(cfg, "cluster")
	repo := func(which, field string) string { return str(get(c, which, field)) }
	p["imageRepo"] = repo("imageRepo", "domain") + ":" + repo("imageRepo", "port")
	p["httpRepo"] = "http://" + repo("httpRepo", "domain") + ":" + repo("httpRepo", "port")
	for _, which := range []string{"imageRepo", "httpRepo"} {
		for _, f := range []string{"Domain", "Port", "Ip", "Prefix"} {
			p[which+f] = repo(which, strings.ToLower(f))
		}
	}
	p["ntpServer"] = str(get(c, "ntpServer"))
	p["agentHealthPort"] = str(get(c, "agentHealthPort"))
	for _, k := range []string{"nfsServer", "nfsRootDir", "nfsVersion"} {
		p[k] = str(get(cfg, "customExtra", k))
	}
	p["namespace"] = str(get(cluster, "metadata", "namespace"))
	for _, k := range []string{"podSubnet", "serviceSubnet", "dnsDomain"} {
		if v := str(get(c, "networking", k)); v != "" {
			p[k] = v
		}
	}
	if h := str(get(cluster, "spec", "controlPlaneEndpoint", "host")); h != "" {
		p["apiServerSrcHost"] = h
	}
	// The endpoint's port is an int32 field of the BKECluster: the context keeps that
	// type (the default, 6443, is an untyped constant, so an int).
	if port, ok := get(cluster, "spec", "controlPlaneEndpoint", "port").(json.Number); ok {
		if i, err := port.Int64(); err == nil && i != 0 {
			p["apiServerSrcPort"] = int32(i)
		}
	}
	var endpoints, ips []string
	for _, n := range nodes {
		if n.has("etcd") {
			endpoints = append(endpoints, "https://"+n.ip+":2379")
			ips = append(ips, n.ip)
		}
	}
	p["etcdEndpoints"] = strings.Join(endpoints, ",")
	p["masterReplicas"] = fmt.Sprint(count(nodes, "master") + count(nodes, "master/node"))
	p["workerReplicas"] = fmt.Sprint(count(nodes, "node"))
	addons, _ := get(cfg, "addons").([]interface{})
	for _, a := range addons {
		switch strings.ToLower(str(get(a, "name"))) {
		case "beyondelb":
			p["ingressReplicas"] = len(strings.Split(str(get(a, "param", "lbNodes")), ","))
		case "calico":
			p["clusterNetworkMode"] = "calico"
		case "fabric":
			p["clusterNetworkMode"] = "fabric"
		}
	}
	dns, err := tenthAddress(p["serviceSubnet"].(string))
	if err != nil {
		return nil, err
	}
	p["dnsIP"] = dns
	p["etcdIps"] = strings.Join(ips, ",")
	if v := str(get(c, "kubernetesVersion")); v != "" {
		p["k8sVersion"] = v
	}
	for _, k := range []string{"etcdVersion", "containerdVersion"} {
		if v := str(get(c, k)); v != "" {
			p[k] = v
		}
	}
	return p, nil
}

func typhaCapable(files []string) bool {
	var all strings.Builder
	for _, f := range files {
		b, _ := os.ReadFile(f)
		all.Write(b)
		all.WriteByte('\n')
	}
	m := all.String()
	has := func(a, b string) bool { return strings.Contains(m, a) && strings.Contains(m, b) }
	return strings.Contains(m, "allowTypha") && strings.Contains(m, "typhaReplicas") &&
		has("kind: Deployment", "name: calico-typha") && has("kind: Service", "name: calico-typha") &&
		has("kind: PodDisruptionBudget", "name: calico-typha") &&
		has("typha_service_name", "FELIX_TYPHAK8SSERVICENAME")
}

// section returns o[key] as an object, creating it when missing.
func section(o object, key string) object {
	if m, ok := o[key].(object); ok {
		return m
	}
	m := object{}
	o[key] = m
	return m
}

// admit applies the webhook's defaults that reach a render context.
func admit(cluster object, nodes []node, names []string) {
	spec := section(cluster, "spec")
	cfg := section(spec, "clusterConfig")
	c := section(cfg, "cluster")
	setIfEmpty := func(o object, key, value string) {
		if str(o[key]) == "" {
			o[key] = value
		}
	}
	setIfEmpty(c, "kubernetesVersion", "v1.34.3-of.1")
	setIfEmpty(c, "etcdVersion", "v3.6.7-of.1")
	setIfEmpty(c, "containerdVersion", "v2.1.1")
	http := section(c, "httpRepo")
	setIfEmpty(http, "domain", "http.bocloud.k8s")
	if str(http["domain"]) == "http.bocloud.k8s" {
		setIfEmpty(http, "port", "40080")
	}
	img := section(c, "imageRepo")
	setIfEmpty(img, "domain", "deploy.bocloud.k8s")
	if str(img["domain"]) == "deploy.bocloud.k8s" {
		setIfEmpty(img, "port", "40443")
		setIfEmpty(img, "prefix", "kubernetes")
	}
	nw := section(c, "networking")
	setIfEmpty(nw, "dnsDomain", "cluster.local")
	setIfEmpty(nw, "serviceSubnet", "10.96.0.0/16")
	setIfEmpty(nw, "podSubnet", "10.250.0.0/16")
	kubelet := section(c, "kubelet")
	vols, _ := kubelet["extraVolumes"].([]interface{})
	found := false
	for _, v := range vols {
		if str(get(v, "name")) == "kubelet-root-dir" {
			found = true
		}
	}
	if !found {
		kubelet["extraVolumes"] = append(vols, object{"name": "kubelet-root-dir", "hostPath": "/var/lib/kubelet"})
	}
	rt := section(c, "containerRuntime")
	setIfEmpty(rt, "cri", "containerd")
	param := section(rt, "param")
	if _, ok := param["data-root"]; !ok {
		switch str(rt["cri"]) {
		case "containerd":
			param["data-root"] = "/var/lib/containerd"
		case "docker":
			param["data-root"] = "/var/lib/docker"
		}
	}
	// Masters (role master, then master/node), in the API's order: by name.
	idx := make([]int, len(nodes))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return names[idx[a]] < names[idx[b]] })
	var masters []string
	for _, role := range []string{"master", "master/node"} {
		for _, i := range idx {
			if nodes[i].has(role) && (role == "master" || !nodes[i].has("master")) {
				masters = append(masters, nodes[i].ip)
			}
		}
	}
	addonDefaults(cfg, masters)
	ep := section(spec, "controlPlaneEndpoint")
	port, _ := ep["port"].(json.Number)
	portZero := port == "" || port == "0"
	if len(masters) > 0 && str(ep["host"]) == "" && portZero {
		ep["host"] = masters[0]
		ep["port"] = json.Number("6443")
	} else if str(ep["host"]) != "" && portZero {
		ep["port"] = json.Number("36443")
	}
}

var vmDefaults = [][2]string{
	{"useVMSingle", "false"}, {"vmSingleStorageSize", "50Gi"},
	{"vmAgentAllowStatefulSet", "true"}, {"vmAgentCpuCount", "4"},
	{"vmAgentMemorySize", "8Gi"}, {"vmAgentStorageSize", "60Gi"},
	{"vmAgentReplicaCount", "2"}, {"vmAgentShareCount", "2"},
	{"vmAgentScrapeInterval", "20s"}, {"vmSelectCpuCount", "12"},
	{"vmSelectMemorySize", "24Gi"}, {"vmSelectStorageSize", "35Gi"},
	{"vmSelectReplicaCount", "2"}, {"vmStorageCPUCount", "5"},
	{"vmStorageMemorySize", "32Gi"}, {"vmStorageStorageSize", "720Gi"},
	{"vmStorageReplicaCount", "10"}, {"vmInsertReplicaCount", "6"},
	{"vmInsertCpuCount", "4"}, {"vmInsertMemorySize", "8Gi"},
	{"vmAlertReplicaCount", "2"}, {"vmAlertCpuCount", "4"},
	{"vmAlertMemorySize", "16Gi"}, {"vmAlertManagerReplicaCount", "2"},
	{"vmAlertManagerCpuCount", "4"}, {"vmAlertManagerMemorySize", "16Gi"},
	{"vmClusterRetentionPeriod", "15d"}, {"vmClusterReplicationFactor", "2"},
	{"grafanaNodePort", "30010"}, {"kubeStateMetricsAutoSharding", "true"},
	{"kubeStateMetricsReplicaCount", "3"}, {"kubeStateMetricsCpuCount", "4"},
	{"kubeStateMetricsMemorySize", "12Gi"},
}

// addonDefaults is the webhook's per-addon defaulting: kubeproxy writes its proxy mode
// into customExtra, victoriametrics-controller gets its missing params, bocoperator
// the pipeline server (the first master) and image cleaning off.
func addonDefaults(cfg object, masters []string) {
	addons, _ := cfg["addons"].([]interface{})
	if len(addons) == 0 {
		return
	}
	extra := section(cfg, "customExtra")
	for _, a := range addons {
		ao, ok := a.(object)
		if !ok {
			continue
		}
		switch str(ao["name"]) {
		case "kubeproxy":
			mode := str(get(ao, "param", "proxyMode"))
			if mode == "" {
				mode = "iptables"
			}
			extra["proxyMode"] = mode
		case "victoriametrics-controller":
			param := section(ao, "param")
			for _, kv := range vmDefaults {
				if _, ok := param[kv[0]]; !ok {
					param[kv[0]] = kv[1]
				}
			}
		case "bocoperator":
			if _, ok := extra["pipelineServer"]; !ok && len(masters) > 0 {
				extra["pipelineServer"] = masters[0]
			}
			if _, ok := extra["pipelineServerEnableCleanImages"]; !ok {
				extra["pipelineServerEnableCleanImages"] = "false"
			}
		}
	}
}

// The values the controller reads from a live cluster, as calico-render labels them.
var (
	portalToken = "placeholder-portal-token-minted-on-the-target-cluster"
	caBundle    = base64.StdEncoding.EncodeToString([]byte("placeholder: the webhook CA bundle the controller ensures"))
	kubeconfig  = "apiVersion: v1\nkind: Config\n# placeholder: the management cluster's local kubeconfig (a Secret the controller reads)\nclusters: []\ncontexts: []\nusers: []\n"
)

// masterNodes is Nodes.Master(): role master, then role master/node, in list order.
func masterNodes(nodes []node) []node {
	var out []node
	for _, role := range []string{"master", "master/node"} {
		for _, n := range nodes {
			if n.has(role) {
				out = append(out, n)
			}
		}
	}
	return out
}

// expandExclude rewrites fabric's excludeIps: addresses as Go prints them, IPv4 ranges
// listed address by address (ends swapped when any byte of the start is greater).
func expandExclude(raw string) (string, error) {
	var out []string
	for _, item := range strings.Split(raw, ",") {
		if !strings.Contains(item, "-") {
			ip := net.ParseIP(item)
			if ip == nil {
				return "", fmt.Errorf("invalid ip %s", item)
			}
			out = append(out, ip.String())
			continue
		}
		ends := strings.Split(item, "-")
		if len(ends) != 2 {
			return "", fmt.Errorf("invalid range %s", item)
		}
		start, end := net.ParseIP(ends[0]).To4(), net.ParseIP(ends[1]).To4()
		if start == nil || end == nil {
			return "", fmt.Errorf("invalid range %s", item)
		}
		swap := false
		if !start.Equal(end) {
			for i := range start {
				if start[i] > end[i] {
					swap = true
				}
			}
		}
		if swap {
			start, end = end, start
		}
		ip := append(net.IP(nil), start...)
		out = append(out, ip.String())
		for n := 0; !ip.Equal(end); n++ {
			if n > 65536 {
				return "", fmt.Errorf("range %s too long", item)
			}
			for j := len(ip) - 1; j >= 0; j-- {
				ip[j]++
				if ip[j] > 0 {
					break
				}
			}
			out = append(out, ip.String())
		}
	}
	return strings.Join(out, ","), nil
}

type nodeJSON struct {
	Role     []string `json:"role,omitempty"`
	IP       string   `json:"ip"`
	Port     string   `json:"port,omitempty"`
	Username string   `json:"username,omitempty"`
	Password string   `json:"password,omitempty"`
	Hostname string   `json:"hostname,omitempty"`
}

// special adds what the controller adds to the common params for some addons, and
// returns the keys it sets in every file after the merge.
func special(name string, raw object, cluster object, nodes []node, p object) (object, error) {
	cfg := get(cluster, "spec", "clusterConfig")
	switch name {
	case "nodelocaldns":
		p["domain"] = str(get(cfg, "cluster", "networking", "dnsDomain"))
		switch str(get(cfg, "customExtra", "proxyMode")) {
		case "iptables":
			p["DNSserver"], p["clusterDNS"] = p["dnsIP"], "__PILLAR__CLUSTER__DNS__"
		case "ipvs":
			p["DNSserver"], p["clusterDNS"] = "", p["dnsIP"]
		}
	case "cluster-api":
		if str(raw["manage"]) == "true" {
			p["clusterToken"] = portalToken
			var list []map[string]interface{}
			for _, n := range nodes {
				list = append(list, map[string]interface{}{
					"hostname": n.hostname, "ip": n.ip, "username": n.username,
					"password": n.password, "port": n.port, "role": n.roles,
				})
			}
			if list == nil {
				list = []map[string]interface{}{}
			}
			p["nodes"] = list
		}
		return object{"capiCaBundle": caBundle, "bkeCaBundle": caBundle}, nil
	case "bocoperator":
		masters := masterNodes(nodes)
		if len(masters) == 0 {
			return nil, fmt.Errorf("no master")
		}
		first, server := masters[0], masters[0]
		if ip := str(get(cfg, "customExtra", "pipelineServer")); ip != "" {
			var chosen []node
			for _, m := range masters {
				if m.ip == ip {
					chosen = append(chosen, m)
				}
			}
			if len(chosen) == 1 {
				server = chosen[0]
			}
		}
		p["masterSshIp"], p["masterSshPort"] = first.ip, first.port
		p["masterSshUser"], p["masterSshPwd"] = first.username, first.password
		p["pipeLineServerIp"], p["pipeLineServerPort"] = server.ip, server.port
		p["pipeLineServerUser"], p["pipeLineServerPwd"] = server.username, server.password
		p["pipeLineServerHostname"] = server.hostname
		p["isLocalDB"], p["bocVersion"] = "true", "v4.0"
		var list []nodeJSON
		for _, m := range masters {
			list = append(list, nodeJSON{m.roles, m.ip, m.port, m.username, m.password, m.hostname})
		}
		js, err := json.Marshal(list)
		if err != nil {
			return nil, err
		}
		p["masterServers"] = string(js)
		p["dbHost"] = str(get(cluster, "spec", "controlPlaneEndpoint", "host"))
		for k, v := range raw {
			if strings.Contains(k, ".") {
				p[k] = str(v)
			}
		}
		p["portalClusterToken"] = portalToken
	case "fabric":
		if ex := str(raw["excludeIps"]); ex != "" {
			expanded, err := expandExclude(ex)
			if err != nil {
				return nil, err
			}
			raw["excludeIps"] = expanded
		}
	}
	return nil, nil
}

// ownParams are the params the controller builds for the addons it installs itself.
func ownParams(name, version string, cluster object, nodes []node) object {
	cfg := get(cluster, "spec", "clusterConfig")
	c := get(cfg, "cluster")
	switch name {
	case "bkeagent":
		repo := "cr.openfuyao.cn/openfuyao"
		if prefix := str(get(c, "imageRepo", "prefix")); prefix != "" {
			repo = registry(str(get(c, "imageRepo", "domain")), str(get(c, "imageRepo", "ip")),
				str(get(c, "imageRepo", "port"))) + "/" + prefix
		}
		image := repo + "/bkeagent-launcher:1.0.1"
		if v := str(get(cfg, "customExtra", "bkeagent-launcher-image")); v != "" {
			image = v
		}
		return object{
			"clusterName": str(get(cluster, "metadata", "name")), "ntpServer": str(get(c, "ntpServer")),
			"agentHealthPort": str(get(c, "agentHealthPort")), "debug": "true",
			"kubeconfig": kubeconfig, "launcherImage": image,
		}
	case "clusterextra":
		var all, etcd, masterIPs []string
		for _, n := range nodes {
			all = append(all, n.ip)
			if n.has("etcd") {
				etcd = append(etcd, n.ip)
			}
		}
		for _, m := range masterNodes(nodes) {
			masterIPs = append(masterIPs, m.ip)
		}
		ips := all
		extra := get(cfg, "customExtra")
		switch version {
		case "install-etcdctl.sh":
			ips = etcd
		case "install-helm.sh", "install-calicoctl.sh":
			ips = masterIPs
		case "install-nfsutils.sh", "clean-docker-images.py":
			ips = nil
			enabled := version != "clean-docker-images.py" || str(get(extra, "pipelineServerEnableCleanImages")) == "true"
			if s := str(get(extra, "pipelineServer")); s != "" && enabled {
				ips = []string{s}
			}
		case "update-runc.sh":
			if h := str(get(extra, "host")); h != "" {
				ips = nil
				for _, ip := range all {
					if ip != h {
						ips = append(ips, ip)
					}
				}
			}
		}
		if len(ips) == 0 { // the controller would skip it: the first master stands in
			ips = masterIPs
			if len(ips) == 0 {
				ips = all
			}
			if len(ips) > 1 {
				ips = ips[:1]
			}
		}
		p := object{"nodesIps": strings.Join(ips, ",")}
		if version != "file-downloader.sh" && version != "package-downloader.sh" {
			http := func(k string) string { return str(get(c, "httpRepo", k)) }
			host := http("domain")
			if host == "" {
				host = http("ip")
			}
			base := "http://"
			switch {
			case host == "" && http("port") != "":
				base = "http://:" + http("port")
			case host != "" && http("port") == "":
				base = "http://" + host
			case host != "":
				base = "http://" + net.JoinHostPort(host, http("port"))
			}
			if prefix := http("prefix"); prefix != "" {
				p["httpRepo"] = base + "/" + prefix
			} else if strings.HasSuffix(base, "/") {
				p["httpRepo"] = base + "files"
			} else {
				p["httpRepo"] = base + "/files"
			}
		}
		return p
	}
	return nil
}

func runContext(clusterFile, nodesFile, dir, outDir string) error {
	var cluster object
	if err := readJSON(clusterFile, &cluster); err != nil {
		return err
	}
	var rawNodes []interface{}
	if err := readJSON(nodesFile, &rawNodes); err != nil {
		return err
	}
	var nodes []node
	var names []string
	for _, rn := range rawNodes {
		n := node{
			ip: str(get(rn, "spec", "ip")), hostname: str(get(rn, "spec", "hostname")),
			port: str(get(rn, "spec", "port")), username: str(get(rn, "spec", "username")),
			password: str(get(rn, "spec", "password")),
		}
		roles, _ := get(rn, "spec", "role").([]interface{})
		for _, r := range roles {
			n.roles = append(n.roles, str(r))
		}
		nodes = append(nodes, n)
		names = append(names, str(get(rn, "metadata", "name")))
	}
	if os.Getenv("BKE_AS_WRITTEN") != "1" {
		admit(cluster, nodes, names)
	}
	name := os.Getenv("BKE_ADDON")
	if name == "" {
		name = "calico"
	}
	// The Typha code finds calico ignoring case, but the manifests are read from
	// kubernetes/<name>/<version>: an addon named Calico names a directory that does
	// not exist, and the install fails there.
	var addon interface{}
	addons, _ := get(cluster, "spec", "clusterConfig", "addons").([]interface{})
	for _, a := range addons {
		if name == "calico" && strings.EqualFold(str(get(a, "name")), "calico") ||
			name != "calico" && str(get(a, "name")) == name {
			addon = a
			break
		}
	}
	internal := name == "bkeagent" || name == "clusterextra"
	if addon == nil && !internal {
		return fmt.Errorf("no %s addon", name)
	}
	if addon != nil {
		named := filepath.Join(filepath.Dir(filepath.Dir(dir)), str(get(addon, "name")), filepath.Base(dir))
		if _, err := os.Stat(named); os.IsNotExist(err) {
			return fmt.Errorf("addon dir %q not exist", named)
		}
	}
	// The controller's walk: every path below the version directory ending in .yaml,
	// subdirectories included, sorted by path.
	var files, bases []string
	err := filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if !info.IsDir() && strings.HasSuffix(path, ".yaml") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(files)
	params := map[string]object{}
	for _, f := range files {
		b := strings.Split(filepath.Base(f), ".")[0]
		bases = append(bases, b)
		params[b] = object{}
	}
	// Addon params, keys sorted: a per-file key is applied after the key for every file.
	raw, _ := get(addon, "param").(object)
	if addon == nil {
		raw = ownParams(name, filepath.Base(dir), cluster, nodes)
	}
	if raw == nil {
		raw = object{}
	}
	common, err := commonParams(cluster, nodes)
	if err != nil {
		return err
	}
	after, err := special(name, raw, cluster, nodes, common)
	if err != nil {
		return err
	}
	var plain, dotted []string
	for k := range raw {
		if strings.Contains(k, ".") {
			dotted = append(dotted, k)
		} else {
			plain = append(plain, k)
		}
	}
	sort.Strings(plain)
	sort.Strings(dotted)
	for _, k := range plain {
		for _, b := range bases {
			params[b][k] = str(raw[k])
		}
	}
	for _, k := range dotted {
		parts := strings.Split(k, ".")
		if params[parts[0]] == nil {
			params[parts[0]] = object{}
		}
		params[parts[0]][parts[1]] = str(raw[k])
	}
	// A nodeSelector param becomes a map[string]string: a JSON object, or k=v pairs
	// separated by commas (a key without "=" maps to "").
	for _, p := range params {
		if raw, ok := p["nodeSelector"].(string); ok {
			selector, err := nodeSelector(raw)
			if err != nil {
				return err
			}
			p["nodeSelector"] = selector
		}
	}
	for _, p := range params {
		for k, v := range common {
			if _, ok := p[k]; !ok {
				p[k] = v
			}
		}
	}
	allow, replicas := "false", "0"
	if name == "calico" && len(nodes) > 50 {
		if !typhaCapable(files) {
			return fmt.Errorf("not Typha-capable above 50 nodes")
		}
		r := (len(nodes) + 199) / 200
		if r < 3 {
			r = 3
		}
		if r > 20 {
			r = 20
		}
		if r >= len(nodes) {
			r = len(nodes) - 1
		}
		allow, replicas = "true", fmt.Sprint(r)
	}
	c := get(cluster, "spec", "clusterConfig", "cluster")
	repo := ""
	if prefix := str(get(c, "imageRepo", "prefix")); prefix != "" {
		repo = registry(str(get(c, "imageRepo", "domain")), str(get(c, "imageRepo", "ip")),
			str(get(c, "imageRepo", "port"))) + "/" + prefix + "/"
	}
	for i, f := range files {
		p := params[bases[i]]
		if name == "calico" {
			p["allowTypha"], p["typhaReplicas"] = allow, replicas
		}
		rel, err := filepath.Rel(dir, f)
		if err != nil {
			return err
		}
		// cluster-api's 003-manage.yaml: a later phase applies it under a name of its
		// own, with the params of that file alone (no CA bundles)
		tmplName := name
		if name == "cluster-api" && rel == "003-manage.yaml" {
			tmplName = "cluster-api-manage"
		} else {
			for k, v := range after {
				p[k] = v
			}
		}
		p["repo"] = repo
		text, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		out := text
		if !strings.Contains(filepath.Join(name, filepath.Base(dir), rel), "noexecute") {
			tmpl, err := template.New(tmplName).Funcs(funcs).Parse(string(text))
			if err != nil {
				return err
			}
			var buf bytes.Buffer
			if err := tmpl.Execute(&buf, map[string]interface{}(p)); err != nil {
				return err
			}
			out = buf.Bytes()
		}
		target := filepath.Join(outDir, rel)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(target, out, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func nodeSelector(raw string) (map[string]string, error) {
	out := map[string]string{}
	raw = strings.TrimSpace(raw)
	if strings.HasPrefix(raw, "{") {
		err := json.Unmarshal([]byte(raw), &out)
		return out, err
	}
	for _, pair := range strings.Split(raw, ",") {
		pair = strings.TrimSpace(pair)
		if pair == "" {
			continue
		}
		key, value, _ := strings.Cut(pair, "=")
		if strings.TrimSpace(key) == "" {
			return nil, fmt.Errorf("invalid nodeSelector entry %q", pair)
		}
		out[strings.TrimSpace(key)] = strings.TrimSpace(value)
	}
	return out, nil
}
